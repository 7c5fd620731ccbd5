package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgGrantRolesToRole answers grantRolesToRole: the roles, which must
// exist and must not make a cycle, are added to the role's.
func msgGrantRolesToRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	roles, err := requireRoles("grantRolesToRole", req)
	if err != nil {
		return nil, err
	}
	if err := checkRoleScope(req.db, nil, roles); err != nil {
		return nil, err
	}
	return c.changeRole(ctx, req, "grantRolesToRole", func(r *roleDoc, all map[mongoauth.RoleName]*roleDoc) error {
		if err := c.s.checkRolesExist(ctx, roles); err != nil {
			return err
		}
		if err := checkNoCycle(r.Name, roles, all); err != nil {
			return err
		}
		r.Roles = addRoles(r.Roles, roles)
		return nil
	})
}
