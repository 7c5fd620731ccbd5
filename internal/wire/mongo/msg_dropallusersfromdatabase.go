package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgDropAllUsersFromDatabase answers dropAllUsersFromDatabase: every user
// of the command's database is removed; n counts them.
func msgDropAllUsersFromDatabase(ctx context.Context, c *conn, req *request) (bson.D, error) {
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	n, err := c.s.deleteAuthDocs(ctx, usersColl, bson.D{{Key: "db", Value: req.db}})
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: int32(n)}}, nil
}
