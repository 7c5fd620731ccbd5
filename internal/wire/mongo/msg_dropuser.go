package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDropUser answers dropUser: the user is removed, and a connection
// authenticated as it is logged out before its next command.
func msgDropUser(ctx context.Context, c *conn, req *request) (bson.D, error) {
	name, ok := req.first().StringValueOK()
	if !ok {
		return nil, typeMismatch("dropUser", "dropUser", req.first().Type, "string")
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	u := userName{name, req.db}
	n, err := c.s.deleteAuthDocs(ctx, usersColl, bson.D{{Key: "_id", Value: u.id()}})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errorf(mongoerr.UserNotFound, "User '%s' not found", u)
	}
	return bson.D{}, nil
}
