package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgRevokeRolesFromUser answers revokeRolesFromUser: the roles, which
// must exist, are removed from the user's.
func msgRevokeRolesFromUser(ctx context.Context, c *conn, req *request) (bson.D, error) {
	return c.changeUserRoles(ctx, req, "revokeRolesFromUser", false)
}
