package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/session"
)

// msgRefreshSessions answers refreshSessions: each session's last use
// becomes now, and its record in config.system.sessions is written again.
func msgRefreshSessions(ctx context.Context, c *conn, req *request) (bson.D, error) {
	ids, err := sessionIDs("refreshSessions", req.first())
	if err != nil {
		return nil, err
	}
	now := c.s.now()
	uid := c.userHash()
	refreshed := make([]*session.Session, 0, len(ids))
	for _, id := range ids {
		s, _ := c.s.sessions.Use(id, uid, now)
		refreshed = append(refreshed, s)
	}
	if err := c.s.writeSessionRecords(ctx, refreshed, now); err != nil {
		return nil, err
	}
	for _, s := range refreshed {
		s.Lock()
		s.RecordWritten(now)
		s.Unlock()
	}
	return bson.D{}, nil
}
