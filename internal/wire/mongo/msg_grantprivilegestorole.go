package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgGrantPrivilegesToRole answers grantPrivilegesToRole: the actions are
// added to the role's privilege on each resource.
func msgGrantPrivilegesToRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	privs, err := privilegesArg("grantPrivilegesToRole", req)
	if err != nil {
		return nil, err
	}
	if err := checkRoleScope(req.db, privs, nil); err != nil {
		return nil, err
	}
	return c.changeRole(ctx, req, "grantPrivilegesToRole", func(r *roleDoc, _ map[mongoauth.RoleName]*roleDoc) error {
		r.Privileges, r.privileges = mergePrivileges(r.Privileges, privs, false)
		return nil
	})
}
