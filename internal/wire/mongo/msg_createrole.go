package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgCreateRole answers createRole: a user-defined role of the command's
// database with its privileges and inherited roles (which must exist).
func msgCreateRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	f, err := parseRoleFields("createRole", req)
	if err != nil {
		return nil, err
	}
	name := mongoauth.RoleName{Role: f.name, DB: req.db}
	switch {
	case f.name == "":
		return nil, errorf(mongoerr.BadValue, "Role name must be non-empty")
	case !f.privilegesSeen:
		return nil, missingField("createRole", "privileges")
	case !f.rolesSeen:
		return nil, missingField("createRole", "roles")
	case mongoauth.IsBuiltin(name):
		return nil, errorf(mongoerr.BadValue, "Cannot create roles with the same name as a built-in role")
	case req.db == "local" || req.db == "$external":
		return nil, errorf(mongoerr.BadValue, "Cannot create roles in the %s database", req.db)
	}
	if err := checkRoleScope(req.db, f.privileges, f.roles); err != nil {
		return nil, err
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	if err := c.s.checkRolesExist(ctx, f.roles); err != nil {
		return nil, err
	}
	r := &roleDoc{Role: mongoauth.Role{Name: name, Privileges: f.privileges, Roles: f.roles}, privileges: f.privilegeDocs}
	if r.Roles == nil {
		r.Roles = []mongoauth.RoleName{}
	}
	dup := errorf(mongoerr.Location51002, "Role \"%s\" already exists", name)
	if err := c.s.insertAuthDoc(ctx, rolesColl, r.doc(), dup); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
