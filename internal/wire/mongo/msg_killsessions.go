package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgKillSessions answers killSessions: the sessions end as with
// endSessions; an empty list kills every session, as MongoDB does without
// access control.
func msgKillSessions(ctx context.Context, c *conn, req *request) (bson.D, error) {
	ids, err := sessionIDs("killSessions", req.first())
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		c.s.cursors.killAllSessions()
		return bson.D{}, c.s.endSessions(ctx, c.s.sessions.EndAll())
	}
	c.s.cursors.killSessions(ids)
	return bson.D{}, c.s.endSessions(ctx, c.endedSessions(ids))
}
