package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgListCollections answers listCollections with a cursor over
// db.$cmd.listCollections. Under access control it needs listCollections
// on the database, except with authorizedCollections and nameOnly: then a
// user with any privilege in the database sees the collections it holds a
// privilege on.
func msgListCollections(ctx context.Context, c *conn, req *request) (bson.D, error) {
	var filter bson.D
	nameOnly, authorized := false, false
	batchSize := int64(defaultBatchSize)
	err := fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "filter":
			filter, err = optDocArg("listCollections", el)
		case "nameOnly":
			nameOnly, err = boolArg("listCollections", el)
		case "authorizedCollections":
			authorized, err = boolArg("listCollections", el)
		case "includePendingDrops":
			_, err = boolArg("listCollections", el)
		case "cursor":
			batchSize, err = cursorBatchSize("listCollections", el, batchSize)
		default:
			err = unknownField("listCollections", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	visible, err := c.visibleCollections(ctx, req, authorized && nameOnly)
	if err != nil {
		return nil, err
	}
	entries, err := c.s.db.ListCollections(ctx, req.db, filter, nameOnly)
	if err != nil {
		return nil, err
	}
	if visible != nil {
		kept := entries[:0]
		for _, e := range entries {
			if name, ok := entryName(e); ok && visible(name) {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	src, err := docsCursor(entries)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(ctx, req, src, req.db+".$cmd.listCollections", batchSize, false, false, "")
}

// cursorBatchSize parses a {batchSize} cursor option.
func cursorBatchSize(cmd string, el bson.RawElement, def int64) (int64, error) {
	v := el.Value()
	doc, ok := v.DocumentOK()
	if !ok {
		return 0, typeMismatch(cmd, "cursor", v.Type, "object")
	}
	elems, err := doc.Elements()
	if err != nil {
		return 0, errorf(mongoerr.InvalidBSON, "invalid cursor option: %v", err)
	}
	n := def
	for _, e := range elems {
		if e.Key() != "batchSize" {
			return 0, unknownField(cmd+".cursor", e.Key())
		}
		if n, err = int64Arg(cmd+".cursor", e); err != nil {
			return 0, err
		}
		if err := nonNegative("batchSize", n); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// docsCursor returns a cursor over documents built in memory.
func docsCursor(docs []bson.D) (*sliceCursor, error) {
	raws := make([]bson.Raw, len(docs))
	for i, d := range docs {
		b, err := bson.Marshal(d)
		if err != nil {
			return nil, err
		}
		raws[i] = b
	}
	return &sliceCursor{docs: raws}, nil
}

// listCollectionsAccess: listCollections on the database, which the
// handler checks itself with authorizedCollections and nameOnly.
var listCollectionsAccess = func() access {
	a := need(onDatabase, "listCollections")
	a.handlerChecks = func(req *request) bool {
		return fieldTrue(req.cmd, "authorizedCollections") && fieldTrue(req.cmd, "nameOnly")
	}
	return a
}()

// visibleCollections returns nil when every collection is listed, else
// which are; it refuses a user without listCollections on the database
// unless authorizedOnly (authorizedCollections with nameOnly) and the user
// holds some privilege there.
func (c *conn) visibleCollections(ctx context.Context, req *request, authorizedOnly bool) (func(string) bool, error) {
	if !c.s.opts.Auth {
		return nil, nil
	}
	u, err := c.currentUser(ctx)
	if err != nil {
		return nil, err
	}
	grants := localhostGrants
	if u != nil {
		grants = u.grants
	}
	if grants.Allows(dbReq(req.db, "listCollections")) {
		return nil, nil
	}
	if !authorizedOnly || !grants.AnyOnDB(req.db) {
		return nil, c.notAuthorized(req)
	}
	return func(coll string) bool {
		return !grants.On(mongoauth.CollectionResource(req.db, coll)).Empty()
	}, nil
}

// entryName is a listCollections entry's name.
func entryName(e bson.D) (string, bool) {
	for _, f := range e {
		if f.Key == "name" {
			s, ok := f.Value.(string)
			return s, ok
		}
	}
	return "", false
}
