package mongo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// Users and roles live where MongoDB keeps them: admin.system.users and
// admin.system.roles, one document per user or role, _id "<db>.<name>".
// A user document holds its credentials (salt, storedKey, serverKey per
// mechanism), never the password.
const (
	authDB    = "admin"
	usersColl = "system.users"
	rolesColl = "system.roles"
)

// userName names a user: its name and its authentication database.
type userName struct {
	user, db string
}

func (u userName) id() string     { return u.db + "." + u.user }
func (u userName) String() string { return u.user + "@" + u.db }

// userDoc is a user as admin.system.users stores it.
type userDoc struct {
	name   userName
	userID bson.Binary
	creds  map[mongoauth.Mechanism]mongoauth.ScramCredential
	// external: a user of $external, authenticated by its certificate
	// (credentials {external: true}).
	external   bool
	roles      []mongoauth.RoleName
	customData bson.Raw
}

// mechanisms returns the user's mechanisms in MongoDB's order.
func (u *userDoc) mechanisms() []mongoauth.Mechanism {
	var out []mongoauth.Mechanism
	for _, m := range mongoauth.Mechanisms {
		if _, ok := u.creds[m]; ok {
			out = append(out, m)
		}
	}
	return out
}

// doc encodes the user for admin.system.users.
func (u *userDoc) doc() bson.D {
	d := bson.D{
		{Key: "_id", Value: u.name.id()},
		{Key: "userId", Value: u.userID},
		{Key: "user", Value: u.name.user},
		{Key: "db", Value: u.name.db},
	}
	creds := bson.D{}
	if u.external {
		creds = append(creds, bson.E{Key: "external", Value: true})
	}
	for _, m := range u.mechanisms() {
		cr := u.creds[m]
		creds = append(creds, bson.E{Key: string(m), Value: bson.D{
			{Key: "iterationCount", Value: int32(cr.IterationCount)},
			{Key: "salt", Value: base64.StdEncoding.EncodeToString(cr.Salt)},
			{Key: "storedKey", Value: base64.StdEncoding.EncodeToString(cr.StoredKey)},
			{Key: "serverKey", Value: base64.StdEncoding.EncodeToString(cr.ServerKey)},
		}})
	}
	d = append(d, bson.E{Key: "credentials", Value: creds})
	if u.customData != nil {
		d = append(d, bson.E{Key: "customData", Value: u.customData})
	}
	return append(d, bson.E{Key: "roles", Value: roleNamesDoc(u.roles)})
}

func roleNamesDoc(roles []mongoauth.RoleName) bson.A {
	a := bson.A{}
	for _, r := range roles {
		a = append(a, bson.D{{Key: "role", Value: r.Role}, {Key: "db", Value: r.DB}})
	}
	return a
}

// parseUserDoc decodes a stored user; a document that is not one is an
// error (it was written to admin.system.users by hand).
func parseUserDoc(raw bson.Raw) (*userDoc, error) {
	var d struct {
		User        string         `bson:"user"`
		DB          string         `bson:"db"`
		UserID      bson.Binary    `bson:"userId"`
		Credentials bson.Raw       `bson:"credentials"`
		CustomData  bson.Raw       `bson:"customData,omitempty"`
		Roles       []roleNameBSON `bson:"roles"`
	}
	if err := bson.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decode user document: %w", err)
	}
	u := &userDoc{name: userName{d.User, d.DB}, userID: d.UserID, customData: d.CustomData,
		creds: map[mongoauth.Mechanism]mongoauth.ScramCredential{}}
	for _, r := range d.Roles {
		u.roles = append(u.roles, mongoauth.RoleName{Role: r.Role, DB: r.DB})
	}
	if d.Credentials != nil {
		elems, err := d.Credentials.Elements()
		if err != nil {
			return nil, fmt.Errorf("decode user credentials: %w", err)
		}
		for _, el := range elems {
			if el.Key() == "external" {
				u.external = truthy(el.Value())
				continue
			}
			m, ok := mongoauth.ParseMechanism(el.Key())
			if !ok {
				continue
			}
			var c struct {
				IterationCount int    `bson:"iterationCount"`
				Salt           string `bson:"salt"`
				StoredKey      string `bson:"storedKey"`
				ServerKey      string `bson:"serverKey"`
			}
			doc, ok := el.Value().DocumentOK()
			if !ok || bson.Unmarshal(doc, &c) != nil {
				return nil, fmt.Errorf("decode %s credentials of %s", m, u.name)
			}
			var cr mongoauth.ScramCredential
			var e1, e2, e3 error
			cr.IterationCount = c.IterationCount
			cr.Salt, e1 = base64.StdEncoding.DecodeString(c.Salt)
			cr.StoredKey, e2 = base64.StdEncoding.DecodeString(c.StoredKey)
			cr.ServerKey, e3 = base64.StdEncoding.DecodeString(c.ServerKey)
			if err := errors.Join(e1, e2, e3); err != nil {
				return nil, fmt.Errorf("decode %s credentials of %s: %w", m, u.name, err)
			}
			u.creds[m] = cr
		}
	}
	return u, nil
}

type roleNameBSON struct {
	Role string `bson:"role"`
	DB   string `bson:"db"`
}

// roleDoc is a user-defined role as admin.system.roles stores it.
type roleDoc struct {
	mongoauth.Role
	// privileges are the privileges as the client gave them (resource
	// documents and action names), kept for rolesInfo.
	privileges bson.A
}

func (r *roleDoc) doc() bson.D {
	return bson.D{
		{Key: "_id", Value: r.Name.DB + "." + r.Name.Role},
		{Key: "role", Value: r.Name.Role},
		{Key: "db", Value: r.Name.DB},
		{Key: "privileges", Value: r.privileges},
		{Key: "roles", Value: roleNamesDoc(r.Roles)},
	}
}

func parseRoleDoc(raw bson.Raw) (*roleDoc, error) {
	var d struct {
		Role       string         `bson:"role"`
		DB         string         `bson:"db"`
		Privileges bson.RawValue  `bson:"privileges"`
		Roles      []roleNameBSON `bson:"roles"`
	}
	if err := bson.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("decode role document: %w", err)
	}
	r := &roleDoc{Role: mongoauth.Role{Name: mongoauth.RoleName{Role: d.Role, DB: d.DB}}, privileges: bson.A{}}
	for _, s := range d.Roles {
		r.Roles = append(r.Roles, mongoauth.RoleName{Role: s.Role, DB: s.DB})
	}
	if d.Privileges.Type == bson.TypeArray {
		privs, docs, err := parsePrivileges("role", d.Privileges)
		if err != nil {
			return nil, fmt.Errorf("decode privileges of role %s: %w", r.Name, err)
		}
		r.Privileges, r.privileges = privs, docs
	}
	return r, nil
}

// readAll returns every document of an authorization collection matching
// filter.
func (s *Server) readAll(ctx context.Context, coll string, filter bson.D) ([]bson.Raw, error) {
	cur, err := s.db.Find(ctx, authDB, coll, docdb.FindRequest{Filter: filter})
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	var out []bson.Raw
	for {
		doc, err := cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, doc)
	}
}

// findUser returns a user, or nil when there is none.
func (s *Server) findUser(ctx context.Context, name userName) (*userDoc, error) {
	docs, err := s.readAll(ctx, usersColl, bson.D{{Key: "_id", Value: name.id()}})
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return parseUserDoc(docs[0])
}

// findUsers returns the users matching filter, in _id order.
func (s *Server) findUsers(ctx context.Context, filter bson.D) ([]*userDoc, error) {
	docs, err := s.readAll(ctx, usersColl, filter)
	if err != nil {
		return nil, err
	}
	out := make([]*userDoc, 0, len(docs))
	for _, d := range docs {
		u, err := parseUserDoc(d)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// anyUser reports whether any user exists (the localhost exception is
// open until one does).
func (s *Server) anyUser(ctx context.Context) (bool, error) {
	n, err := s.db.Count(ctx, authDB, usersColl, docdb.CountRequest{Limit: 1})
	return n > 0, err
}

// findRoles returns the user-defined roles matching filter.
func (s *Server) findRoles(ctx context.Context, filter bson.D) ([]*roleDoc, error) {
	docs, err := s.readAll(ctx, rolesColl, filter)
	if err != nil {
		return nil, err
	}
	out := make([]*roleDoc, 0, len(docs))
	for _, d := range docs {
		r, err := parseRoleDoc(d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// roleSource loads every user-defined role for resolving roles.
func (s *Server) roleSource(ctx context.Context) (mongoauth.RoleSource, map[mongoauth.RoleName]*roleDoc, error) {
	roles, err := s.findRoles(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[mongoauth.RoleName]*roleDoc, len(roles))
	for _, r := range roles {
		m[r.Name] = r
	}
	return func(n mongoauth.RoleName) (*mongoauth.Role, bool) {
		r, ok := m[n]
		if !ok {
			return nil, false
		}
		return &r.Role, true
	}, m, nil
}

// insertAuthDoc inserts a user or role document; dup is the error of an
// existing _id.
func (s *Server) insertAuthDoc(ctx context.Context, coll string, doc bson.D, dup *mongoerr.Error) error {
	raw, err := bson.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode %s document: %w", coll, err)
	}
	res, err := s.db.Insert(ctx, authDB, coll, docdb.InsertRequest{Documents: []bson.Raw{raw}, Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		if e, ok := mongoerr.As(res.WriteErrors[0].Err); ok && e.Code == mongoerr.DuplicateKey {
			return dup
		}
		return res.WriteErrors[0].Err
	}
	s.authChanged()
	return nil
}

// replaceAuthDoc replaces the document of _id id.
func (s *Server) replaceAuthDoc(ctx context.Context, coll, id string, doc bson.D) error {
	res, err := s.db.Update(ctx, authDB, coll, docdb.UpdateRequest{Ordered: true, Statements: []docdb.UpdateStatement{{
		Filter: bson.D{{Key: "_id", Value: id}}, Update: doc,
	}}})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	s.authChanged()
	return nil
}

// deleteAuthDocs deletes the documents matching filter and returns how
// many there were.
func (s *Server) deleteAuthDocs(ctx context.Context, coll string, filter bson.D) (int64, error) {
	res, err := s.db.Delete(ctx, authDB, coll, docdb.DeleteRequest{Ordered: true, Statements: []docdb.DeleteStatement{{Filter: filter}}})
	if err != nil {
		return 0, err
	}
	if len(res.WriteErrors) > 0 {
		return 0, res.WriteErrors[0].Err
	}
	s.authChanged()
	return res.N, nil
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// authChanged makes every connection resolve its user's privileges again
// before its next command.
func (s *Server) authChanged() { s.authGen.Add(1) }
