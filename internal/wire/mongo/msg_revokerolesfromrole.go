package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgRevokeRolesFromRole answers revokeRolesFromRole: the roles are
// removed from the role's inherited roles.
func msgRevokeRolesFromRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	roles, err := requireRoles("revokeRolesFromRole", req)
	if err != nil {
		return nil, err
	}
	return c.changeRole(ctx, req, "revokeRolesFromRole", func(r *roleDoc, _ map[mongoauth.RoleName]*roleDoc) error {
		if err := c.s.checkRolesExist(ctx, roles); err != nil {
			return err
		}
		r.Roles = removeRoles(r.Roles, roles)
		return nil
	})
}
