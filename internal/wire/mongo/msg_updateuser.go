package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgUpdateUser answers updateUser: a new password (new credentials for
// the user's mechanisms, or for the ones given), customData, or roles
// (replacing the old ones).
func msgUpdateUser(ctx context.Context, c *conn, req *request) (bson.D, error) {
	f, err := parseUserFields("updateUser", req)
	if err != nil {
		return nil, err
	}
	if f.pwd == nil && !f.customSeen && !f.rolesSeen && !f.mechsSeen {
		return nil, errorf(mongoerr.BadValue, "Must specify at least one field to update in updateUser")
	}
	if f.mechsSeen && f.pwd == nil {
		return nil, errorf(mongoerr.BadValue, "A new password must be specified when changing mechanisms")
	}
	c.s.authMu.Lock()
	defer c.s.authMu.Unlock()
	u, err := c.s.mustFindUser(ctx, userName{f.name, req.db})
	if err != nil {
		return nil, err
	}
	if f.pwd != nil {
		mechs := f.mechanisms
		if !f.mechsSeen {
			mechs = u.mechanisms()
		}
		if u.creds, err = credentials(f.name, *f.pwd, mechs); err != nil {
			return nil, err
		}
	}
	if f.customSeen {
		u.customData = f.customData
	}
	if f.rolesSeen {
		if err := c.s.checkRolesExist(ctx, f.roles); err != nil {
			return nil, err
		}
		u.roles = f.roles
	}
	if err := c.s.replaceAuthDoc(ctx, usersColl, u.name.id(), u.doc()); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
