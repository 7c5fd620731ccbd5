package mongo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// msgDataSize answers dataSize: {size, numObjects, millis} of the
// collection its first field names by full namespace ("db.coll"), from the
// collection's counters; a missing collection has size 0 and no objects.
// The range form (keyPattern, min, max) is not served: it answers an
// unknown field error.
func msgDataSize(ctx context.Context, c *conn, req *request) (bson.D, error) {
	start := time.Now()
	db, coll, err := dataSizeNamespace(req)
	if err != nil {
		return nil, err
	}
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "estimate":
			_, err := boolArg("dataSize", el)
			return err
		default:
			return unknownField("dataSize", k)
		}
	})
	if err != nil {
		return nil, err
	}
	var size, count int64
	st, err := c.s.db.CollStats(ctx, db, coll)
	switch {
	case err == nil:
		size, count = st.Size, st.Count
	case mongoerr.CodeOf(err) == mongoerr.NamespaceNotFound:
	default:
		return nil, err
	}
	return bson.D{
		{Key: "size", Value: countValue(size)},
		{Key: "numObjects", Value: countValue(count)},
		{Key: "millis", Value: time.Since(start).Milliseconds()},
	}, nil
}

// dataSizeNamespace splits dataSize's fully qualified namespace.
func dataSizeNamespace(req *request) (db, coll string, err error) {
	v := req.first()
	ns, ok := v.StringValueOK()
	if !ok {
		return "", "", errorf(mongoerr.BadValue, "namespace has invalid type %s", typeName(v.Type))
	}
	db, coll, ok = splitNamespace(ns)
	if !ok {
		return "", "", errorf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	return db, coll, nil
}

// dataSizeAccess: find on the namespace dataSize names.
func dataSizeAccess(req *request) []mongoauth.Requirement {
	db, coll, err := dataSizeNamespace(req)
	if err != nil {
		return nil
	}
	return []mongoauth.Requirement{collReq(db, coll, "find")}
}
