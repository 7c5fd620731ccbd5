package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgRevokePrivilegesFromRole answers revokePrivilegesFromRole: the
// actions are taken from the role's privilege on each resource; a
// privilege left without actions is removed.
func msgRevokePrivilegesFromRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	privs, err := privilegesArg("revokePrivilegesFromRole", req)
	if err != nil {
		return nil, err
	}
	return c.changeRole(ctx, req, "revokePrivilegesFromRole", func(r *roleDoc, _ map[mongoauth.RoleName]*roleDoc) error {
		r.Privileges, r.privileges = mergePrivileges(r.Privileges, privs, true)
		return nil
	})
}
