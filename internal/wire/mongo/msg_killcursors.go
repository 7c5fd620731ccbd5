package mongo

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgKillCursors answers killCursors: {cursorsKilled, cursorsNotFound,
// cursorsAlive, cursorsUnknown}. Under access control a user kills its
// own cursors; another user's needs killAnyCursor on the cluster or on
// the cursor's namespace, else the whole command is Unauthorized.
func msgKillCursors(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var ids []int64
	have := false
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "cursors":
			have = true
			v := el.Value()
			arr, ok := v.ArrayOK()
			if !ok {
				return typeMismatch("killCursors", "cursors", v.Type, "array")
			}
			vals, err := arr.Values()
			if err != nil {
				return errorf(mongoerr.InvalidBSON, "invalid cursors array: %v", err)
			}
			for i, x := range vals {
				if x.Type != bson.TypeInt64 {
					return typeMismatch("killCursors", "cursors."+itoa(i), x.Type, "long")
				}
				ids = append(ids, x.Int64())
			}
			return nil
		default:
			return unknownField("killCursors", k)
		}
	})
	if err != nil {
		return nil, err
	}
	if !have {
		return nil, missingField("killCursors", "cursors")
	}
	ns := namespace(req.db, coll)
	if err := c.checkKillCursors(ctx, req.db, coll, ns, ids); err != nil {
		return nil, err
	}
	killed, notFound := bson.A{}, bson.A{}
	for _, id := range ids {
		if c.s.cursors.kill(id, ns) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}

// checkKillCursors refuses ids when one of them is a cursor another user
// opened and the connection's user may not kill any cursor there.
func (c *conn) checkKillCursors(ctx context.Context, db, coll, ns string, ids []int64) error {
	if !c.s.opts.Auth {
		return nil
	}
	u, err := c.currentUser(ctx)
	if err != nil {
		return err
	}
	me := c.userString()
	target := mongoauth.CollectionResource(db, coll)
	if strings.HasPrefix(coll, "$cmd.") {
		target = mongoauth.DBResource(db)
	}
	for _, id := range ids {
		owner, ok := c.s.cursors.owner(id, ns)
		if !ok || owner == me {
			continue
		}
		if u != nil && (u.grants.Allows(clusterReq("killAnyCursor")) ||
			u.grants.Allows(mongoauth.Requirement{Resource: target, Actions: mongoauth.Actions("killAnyCursor")})) {
			continue
		}
		return errorf(mongoerr.Unauthorized, "not authorized to kill cursor on %s", ns)
	}
	return nil
}
