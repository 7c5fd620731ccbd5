package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgDropRole answers dropRole: the role is removed from every user and
// role that holds it, then deleted.
func msgDropRole(ctx context.Context, c *conn, req *request) (bson.D, error) {
	name, err := roleNameArg("dropRole", req)
	if err != nil {
		return nil, err
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	if _, _, err := c.s.mustFindRole(ctx, name); err != nil {
		return nil, err
	}
	if err := c.s.dropRoles(ctx, []mongoauth.RoleName{name}); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// dropRoles removes roles from every user and role holding them, then
// deletes them; s.authMu is held.
func (s *Server) dropRoles(ctx context.Context, names []mongoauth.RoleName) error {
	users, err := s.findUsers(ctx, nil)
	if err != nil {
		return err
	}
	for _, u := range users {
		if kept := removeRoles(u.roles, names); len(kept) != len(u.roles) {
			u.roles = kept
			if err := s.replaceAuthDoc(ctx, usersColl, u.name.id(), u.doc()); err != nil {
				return err
			}
		}
	}
	roles, err := s.findRoles(ctx, nil)
	if err != nil {
		return err
	}
	for _, r := range roles {
		if containsRole(names, r.Name) {
			continue
		}
		if kept := removeRoles(r.Roles, names); len(kept) != len(r.Roles) {
			r.Roles = kept
			if err := s.replaceAuthDoc(ctx, rolesColl, r.Name.DB+"."+r.Name.Role, r.doc()); err != nil {
				return err
			}
		}
	}
	for _, n := range names {
		if _, err := s.deleteAuthDocs(ctx, rolesColl, bson.D{{Key: "_id", Value: n.DB + "." + n.Role}}); err != nil {
			return err
		}
	}
	return nil
}
