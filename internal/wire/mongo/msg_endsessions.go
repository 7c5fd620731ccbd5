package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgEndSessions answers endSessions: the sessions' open cursors are
// closed. mayfly keeps no other session state.
func msgEndSessions(_ context.Context, c *conn, req *request) (bson.D, error) {
	ids, err := sessionIDs("endSessions", req.first())
	if err != nil {
		return nil, err
	}
	c.s.cursors.killSessions(ids)
	return bson.D{}, nil
}
