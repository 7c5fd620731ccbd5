package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgDropAllRolesFromDatabase answers dropAllRolesFromDatabase: every
// user-defined role of the command's database is dropped as dropRole
// drops one; n counts them.
func msgDropAllRolesFromDatabase(ctx context.Context, c *conn, req *request) (bson.D, error) {
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	roles, err := c.s.findRoles(ctx, bson.D{{Key: "db", Value: req.db}})
	if err != nil {
		return nil, err
	}
	names := make([]mongoauth.RoleName, len(roles))
	for i, r := range roles {
		names[i] = r.Name
	}
	if err := c.s.dropRoles(ctx, names); err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: int32(len(names))}}, nil
}
