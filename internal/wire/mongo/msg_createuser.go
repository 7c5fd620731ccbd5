package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgCreateUser answers createUser: a user of the command's database with
// SCRAM credentials for its mechanisms (both by default) derived from pwd
// on the server, and its roles, which must exist. A user of $external has
// no password: it authenticates by its certificate (MONGODB-X509).
func msgCreateUser(ctx context.Context, c *conn, req *request) (bson.D, error) {
	f, err := parseUserFields("createUser", req)
	if err != nil {
		return nil, err
	}
	switch {
	case f.name == "":
		return nil, errorf(mongoerr.BadValue, "User document needs 'user' field to be non-empty")
	case !f.rolesSeen:
		return nil, missingField("createUser", "roles")
	case req.db == "local":
		return nil, errorf(mongoerr.BadValue, "Cannot create users in the local database")
	case req.db == mongoauth.ExternalDB && f.pwd != nil:
		return nil, errorf(mongoerr.BadValue, "Cannot set the password for users defined on the '$external' database")
	case req.db != mongoauth.ExternalDB && f.pwd == nil:
		return nil, errorf(mongoerr.BadValue, "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db")
	}
	mechs := f.mechanisms
	if !f.mechsSeen {
		mechs = mongoauth.Mechanisms
	}
	creds := map[mongoauth.Mechanism]mongoauth.ScramCredential{}
	if f.pwd != nil {
		if creds, err = credentials(f.name, *f.pwd, mechs); err != nil {
			return nil, err
		}
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	if err := c.s.checkRolesExist(ctx, f.roles); err != nil {
		return nil, err
	}
	if c.s.opts.Auth && c.user == nil {
		// The localhost exception: only while no user exists.
		if !c.localhostExceptionOpen(ctx) {
			return nil, errorf(mongoerr.Unauthorized, "Command createUser requires authentication")
		}
		c.log.Info("Creating the first user through the localhost exception", "user", f.name, "db", req.db, "client", c.remote)
	}
	u := &userDoc{name: userName{f.name, req.db}, userID: newUserID(), creds: creds, external: req.db == mongoauth.ExternalDB, roles: f.roles, customData: f.customData}
	if u.roles == nil {
		u.roles = []mongoauth.RoleName{}
	}
	dup := errorf(mongoerr.Location51003, "User \"%s\" already exists", u.name)
	if err := c.s.insertAuthDoc(ctx, usersColl, u.doc(), dup); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
