package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/session"
)

// msgEndSessions answers endSessions: the sessions end, with their open
// cursors, their retryable writes' records and their records in
// config.system.sessions.
func msgEndSessions(ctx context.Context, c *conn, req *request) (bson.D, error) {
	ids, err := sessionIDs("endSessions", req.first())
	if err != nil {
		return nil, err
	}
	c.s.cursors.killSessions(ids)
	return bson.D{}, c.s.endSessions(ctx, c.endedSessions(ids))
}

// endedSessions removes the sessions with the given ids from the registry
// and returns them, with the caller's own sessions of those ids that the
// registry no longer held (used before a restart), whose records must go
// too.
func (c *conn) endedSessions(ids [][]byte) []*session.Session {
	ended := c.s.sessions.End(ids)
	uid := c.userHash()
	for _, id := range ids {
		k := session.Key(id, uid)
		found := false
		for _, s := range ended {
			found = found || s.Key() == k
		}
		if !found {
			ended = append(ended, session.Detached(id, uid))
		}
	}
	return ended
}
