package mongo

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgUsersInfo answers usersInfo in all its forms: 1 (the database's
// users), a name, {user, db}, an array of those, or {forAllDBs: true};
// with showCustomData (default), showPrivileges (inherited roles and
// privileges), showCredentials and filter. showCredentials reports the
// credentials as MongoDB 7.0 does: each mechanism's iterationCount, salt,
// storedKey and serverKey, and external: true for a user of $external.
func msgUsersInfo(ctx context.Context, c *conn, req *request) (bson.D, error) {
	showCreds, showCustom, showPrivs := false, true, false
	var filter *query.Filter
	first := true
	err := eachElement(req.cmd, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		var err error
		switch el.Key() {
		case "showCredentials":
			showCreds = truthy(el.Value())
		case "showCustomData":
			showCustom = truthy(el.Value())
		case "showPrivileges":
			showPrivs = truthy(el.Value())
		case "filter":
			var d bson.D
			if d, err = docArg("usersInfo", el); err == nil {
				filter, err = query.ParseFilter(d)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	users, err := c.usersNamed(ctx, req)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(users, func(a, b *userDoc) int {
		if n := strings.Compare(a.name.user, b.name.user); n != 0 {
			return n
		}
		return strings.Compare(a.name.db, b.name.db)
	})
	var src mongoauth.RoleSource
	if showPrivs {
		if src, _, err = c.s.roleSource(ctx); err != nil {
			return nil, err
		}
	}
	out := bson.A{}
	for _, u := range users {
		d := bson.D{
			{Key: "_id", Value: u.name.id()},
			{Key: "userId", Value: u.userID},
			{Key: "user", Value: u.name.user},
			{Key: "db", Value: u.name.db},
		}
		if showCreds {
			creds := bson.D{}
			if u.external {
				creds = append(creds, bson.E{Key: "external", Value: true})
			}
			for _, m := range u.mechanisms() {
				cr := u.creds[m]
				creds = append(creds, bson.E{Key: string(m), Value: bson.D{
					{Key: "iterationCount", Value: int32(cr.IterationCount)},
					{Key: "salt", Value: encodeBase64(cr.Salt)},
					{Key: "storedKey", Value: encodeBase64(cr.StoredKey)},
					{Key: "serverKey", Value: encodeBase64(cr.ServerKey)},
				}})
			}
			d = append(d, bson.E{Key: "credentials", Value: creds})
		}
		if showCustom && u.customData != nil {
			d = append(d, bson.E{Key: "customData", Value: u.customData})
		}
		d = append(d, bson.E{Key: "roles", Value: roleNamesDoc(u.roles)})
		if showPrivs {
			d = append(d,
				bson.E{Key: "inheritedRoles", Value: roleNamesDoc(mongoauth.Closure(u.roles, src))},
				bson.E{Key: "inheritedPrivileges", Value: privilegesDoc(mongoauth.Resolve(u.roles, src).Privileges())},
			)
		}
		mechs := bson.A{}
		if u.external {
			mechs = append(mechs, "external")
		}
		for _, m := range u.mechanisms() {
			mechs = append(mechs, string(m))
		}
		d = append(d, bson.E{Key: "mechanisms", Value: mechs})
		if filter != nil && !filter.Match(d) {
			continue
		}
		out = append(out, d)
	}
	return bson.D{{Key: "users", Value: out}}, nil
}

// usersNamed returns the users usersInfo's first field names.
func (c *conn) usersNamed(ctx context.Context, req *request) ([]*userDoc, error) {
	v := req.first()
	if isNumber(v.Type) {
		return c.s.findUsers(ctx, bson.D{{Key: "db", Value: req.db}})
	}
	if d, ok := v.DocumentOK(); ok {
		if f, err := d.LookupErr("forAllDBs"); err == nil {
			if !truthy(f) {
				return nil, errorf(mongoerr.BadValue, "forAllDBs must be true")
			}
			return c.s.findUsers(ctx, nil)
		}
	}
	var vals []bson.RawValue
	if arr, ok := v.ArrayOK(); ok {
		vals, _ = arr.Values()
	} else {
		vals = []bson.RawValue{v}
	}
	var out []*userDoc
	seen := map[userName]bool{}
	for _, x := range vals {
		name, err := parseUserName(x, req.db)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		u, err := c.s.findUser(ctx, name)
		if err != nil {
			return nil, err
		}
		if u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// parseUserName reads a user name: a string in database db, or {user,
// db}.
func parseUserName(v bson.RawValue, db string) (userName, error) {
	if s, ok := v.StringValueOK(); ok {
		return userName{s, db}, nil
	}
	if d, ok := v.DocumentOK(); ok {
		u, e1 := d.LookupErr("user")
		x, e2 := d.LookupErr("db")
		us, ok1 := u.StringValueOK()
		xs, ok2 := x.StringValueOK()
		if e1 == nil && e2 == nil && ok1 && ok2 {
			return userName{us, xs}, nil
		}
	}
	return userName{}, errorf(mongoerr.BadValue, "User name must be either a string or an object of the form {user: \"<user name>\", db: \"<user db>\"}")
}
