package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgGrantRolesToUser answers grantRolesToUser: the roles, which must
// exist, are added to the user's.
func msgGrantRolesToUser(ctx context.Context, c *conn, req *request) (bson.D, error) {
	return c.changeUserRoles(ctx, req, "grantRolesToUser", true)
}

// changeUserRoles adds (grant) or removes the roles the command names.
func (c *conn) changeUserRoles(ctx context.Context, req *request, cmd string, grant bool) (bson.D, error) {
	name, ok := req.first().StringValueOK()
	if !ok {
		return nil, typeMismatch(cmd, cmd, req.first().Type, "string")
	}
	roles, err := requireRoles(cmd, req)
	if err != nil {
		return nil, err
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	if err := c.s.checkRolesExist(ctx, roles); err != nil {
		return nil, err
	}
	u, err := c.s.mustFindUser(ctx, userName{name, req.db})
	if err != nil {
		return nil, err
	}
	if grant {
		u.roles = addRoles(u.roles, roles)
	} else {
		u.roles = removeRoles(u.roles, roles)
	}
	if err := c.s.replaceAuthDoc(ctx, usersColl, u.name.id(), u.doc()); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
