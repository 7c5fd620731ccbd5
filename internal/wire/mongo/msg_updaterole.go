package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgUpdateRole answers updateRole: the privileges and/or the inherited
// roles given replace the role's.
func msgUpdateRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	f, err := parseRoleFields("updateRole", req)
	if err != nil {
		return nil, err
	}
	if !f.privilegesSeen && !f.rolesSeen {
		return nil, errorf(mongoerr.BadValue, "Must specify at least one field to update in updateRole")
	}
	if err := checkRoleScope(req.db, f.privileges, f.roles); err != nil {
		return nil, err
	}
	return c.changeRole(ctx, req, "updateRole", func(r *roleDoc, all map[mongoauth.RoleName]*roleDoc) error {
		if f.rolesSeen {
			if err := c.s.checkRolesExist(ctx, f.roles); err != nil {
				return err
			}
			if err := checkNoCycle(r.Name, f.roles, all); err != nil {
				return err
			}
			r.Roles = f.roles
		}
		if f.privilegesSeen {
			r.Privileges, r.privileges = f.privileges, f.privilegeDocs
		}
		return nil
	})
}
