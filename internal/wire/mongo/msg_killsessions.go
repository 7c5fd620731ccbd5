package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgKillSessions answers killSessions: the sessions' open cursors are
// closed; an empty list kills every session's cursors, as MongoDB does
// without access control.
func msgKillSessions(_ context.Context, c *conn, req *request) (bson.D, error) {
	ids, err := sessionIDs("killSessions", req.first())
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		c.s.cursors.killAllSessions()
	} else {
		c.s.cursors.killSessions(ids)
	}
	return bson.D{}, nil
}
