package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// roleFields are the fields of createRole and updateRole.
type roleFields struct {
	name           string
	privileges     []mongoauth.Privilege
	privilegeDocs  bson.A
	privilegesSeen bool
	roles          []mongoauth.RoleName
	rolesSeen      bool
}

func parseRoleFields(cmd string, req *request) (roleFields, error) {
	var f roleFields
	name, ok := req.first().StringValueOK()
	if !ok {
		return f, typeMismatch(cmd, cmd, req.first().Type, "string")
	}
	f.name = name
	first := true
	err := eachElement(req.cmd, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		var err error
		switch k := el.Key(); k {
		case "privileges":
			f.privileges, f.privilegeDocs, err = parsePrivileges(cmd, el.Value())
			f.privilegesSeen = true
		case "roles":
			f.roles, err = parseRoleNames("roles", el.Value(), req.db)
			f.rolesSeen = true
		case "authenticationRestrictions":
			err = refuseRestrictions(el.Value())
		default:
			if !genericArgs[k] {
				err = unknownField(cmd, k)
			}
		}
		return err
	})
	return f, err
}

// checkRoleScope refuses, in a database other than admin, privileges and
// roles of other databases, as MongoDB does.
func checkRoleScope(db string, privs []mongoauth.Privilege, roles []mongoauth.RoleName) error {
	if db == authDB {
		return nil
	}
	for _, p := range privs {
		if p.Resource.Cluster || p.Resource.AnyResource || p.Resource.DB != db {
			return errorf(mongoerr.BadValue, "Roles on the '%s' database cannot be granted privileges that target other databases or the cluster", db)
		}
	}
	for _, r := range roles {
		if r.DB != db {
			return errorf(mongoerr.BadValue, "Roles on the '%s' database cannot be granted roles from other databases", db)
		}
	}
	return nil
}

// mustFindRole returns a user-defined role, or RoleNotFound (built-in
// roles cannot be changed).
func (s *Server) mustFindRole(ctx context.Context, name mongoauth.RoleName) (*roleDoc, map[mongoauth.RoleName]*roleDoc, error) {
	if mongoauth.IsBuiltin(name) {
		return nil, nil, errorf(mongoerr.InvalidRoleModification, "Cannot grant privileges to built-in role \"%s\"", name)
	}
	_, all, err := s.roleSource(ctx)
	if err != nil {
		return nil, nil, err
	}
	r, ok := all[name]
	if !ok {
		return nil, nil, errorf(mongoerr.RoleNotFound, "Role %s not found", name)
	}
	return r, all, nil
}

// checkNoCycle refuses roles for role that would reach role itself.
func checkNoCycle(role mongoauth.RoleName, roles []mongoauth.RoleName, all map[mongoauth.RoleName]*roleDoc) error {
	src := func(n mongoauth.RoleName) (*mongoauth.Role, bool) {
		r, ok := all[n]
		if !ok {
			return nil, false
		}
		return &r.Role, true
	}
	for _, r := range roles {
		if r == role || containsRole(mongoauth.Closure([]mongoauth.RoleName{r}, src), role) {
			return errorf(mongoerr.InvalidRoleModification, "Granting %s to %s would introduce a cycle in the role graph", r, role)
		}
	}
	return nil
}

// roleNameArg is the role a role command names first.
func roleNameArg(cmd string, req *request) (mongoauth.RoleName, error) {
	name, ok := req.first().StringValueOK()
	if !ok {
		return mongoauth.RoleName{}, typeMismatch(cmd, cmd, req.first().Type, "string")
	}
	return mongoauth.RoleName{Role: name, DB: req.db}, nil
}

// changeRole applies edit to a user-defined role and stores it.
func (c *conn) changeRole(ctx context.Context, req *request, cmd string, edit func(r *roleDoc, all map[mongoauth.RoleName]*roleDoc) error) (bson.D, error) {
	name, err := roleNameArg(cmd, req)
	if err != nil {
		return nil, err
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	r, all, err := c.s.mustFindRole(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := edit(r, all); err != nil {
		return nil, err
	}
	if err := c.s.replaceAuthDoc(ctx, rolesColl, name.DB+"."+name.Role, r.doc()); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// privilegesArg reads the privileges field grant and revoke take.
func privilegesArg(cmd string, req *request) ([]mongoauth.Privilege, error) {
	v, err := req.cmd.LookupErr("privileges")
	if err != nil {
		return nil, missingField(cmd, "privileges")
	}
	privs, _, err := parsePrivileges(cmd, v)
	return privs, err
}

// mergePrivileges adds (or, with remove, takes away) actions per
// resource and returns the role's new privileges and their documents.
func mergePrivileges(cur, change []mongoauth.Privilege, remove bool) ([]mongoauth.Privilege, bson.A) {
	out := append([]mongoauth.Privilege(nil), cur...)
	for _, ch := range change {
		found := false
		for i := range out {
			if out[i].Resource == ch.Resource {
				found = true
				if remove {
					out[i].Actions = out[i].Actions.Minus(ch.Actions)
				} else {
					out[i].Actions = out[i].Actions.Union(ch.Actions)
				}
			}
		}
		if !found && !remove {
			out = append(out, ch)
		}
	}
	kept := out[:0]
	for _, p := range out {
		if !p.Actions.Empty() {
			kept = append(kept, p)
		}
	}
	return kept, privilegesDoc(kept)
}
