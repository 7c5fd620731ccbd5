package mongo

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgRolesInfo answers rolesInfo: 1 (the database's user-defined roles,
// and its built-in ones with showBuiltinRoles), a name, {role, db} or an
// array of those; showPrivileges adds each role's own and inherited
// privileges.
func msgRolesInfo(ctx context.Context, c *conn, req *request) (bson.D, error) {
	showPrivs, showBuiltin := false, false
	if v, err := req.cmd.LookupErr("showPrivileges"); err == nil {
		showPrivs = truthy(v) || v.Type == bson.TypeString
	}
	if v, err := req.cmd.LookupErr("showBuiltinRoles"); err == nil {
		showBuiltin = truthy(v)
	}
	src, all, err := c.s.roleSource(ctx)
	if err != nil {
		return nil, err
	}
	var names []mongoauth.RoleName
	v := req.first()
	if isNumber(v.Type) {
		for n := range all {
			if n.DB == req.db {
				names = append(names, n)
			}
		}
		if showBuiltin {
			names = append(names, mongoauth.BuiltinRoles(req.db)...)
		}
		slices.SortFunc(names, func(a, b mongoauth.RoleName) int { return strings.Compare(a.Role, b.Role) })
	} else {
		var vals []bson.RawValue
		if arr, ok := v.ArrayOK(); ok {
			vals, _ = arr.Values()
		} else {
			vals = []bson.RawValue{v}
		}
		for _, x := range vals {
			n, err := parseRoleName(x, req.db)
			if err != nil {
				return nil, err
			}
			names = append(names, n)
		}
	}
	out := bson.A{}
	for _, n := range names {
		builtin := mongoauth.IsBuiltin(n)
		r, defined := all[n]
		if !builtin && !defined {
			continue
		}
		d := bson.D{}
		direct := []mongoauth.RoleName{}
		if defined {
			d = append(d, bson.E{Key: "_id", Value: n.DB + "." + n.Role})
			direct = r.Roles
		}
		d = append(d,
			bson.E{Key: "role", Value: n.Role},
			bson.E{Key: "db", Value: n.DB},
			bson.E{Key: "isBuiltin", Value: builtin},
			bson.E{Key: "roles", Value: roleNamesDoc(direct)},
		)
		inherited := mongoauth.Closure(direct, src)
		d = append(d, bson.E{Key: "inheritedRoles", Value: roleNamesDoc(inherited)})
		if showPrivs {
			own, _ := mongoauth.RolePrivileges(n, src)
			d = append(d,
				bson.E{Key: "privileges", Value: privilegesDoc(mongoauth.GrantsOf(own).Privileges())},
				bson.E{Key: "inheritedPrivileges", Value: privilegesDoc(mongoauth.Resolve([]mongoauth.RoleName{n}, src).Privileges())},
			)
		}
		out = append(out, d)
	}
	return bson.D{{Key: "roles", Value: out}}, nil
}

// parseRoleName reads a role name: a string in database db, or {role,
// db}.
func parseRoleName(v bson.RawValue, db string) (mongoauth.RoleName, error) {
	if s, ok := v.StringValueOK(); ok {
		return mongoauth.RoleName{Role: s, DB: db}, nil
	}
	if d, ok := v.DocumentOK(); ok {
		r, e1 := d.LookupErr("role")
		x, e2 := d.LookupErr("db")
		rs, ok1 := r.StringValueOK()
		xs, ok2 := x.StringValueOK()
		if e1 == nil && e2 == nil && ok1 && ok2 {
			return mongoauth.RoleName{Role: rs, DB: xs}, nil
		}
	}
	return mongoauth.RoleName{}, errorf(mongoerr.BadValue, "Role name must be either a string or an object of the form {role: \"<role name>\", db: \"<role db>\"}")
}
