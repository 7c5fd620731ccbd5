package mongo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDBHash answers dbHash as MongoDB does: host, each collection's md5
// (collections), the capped ones, each one's UUID (uuids), the database's
// md5 and timeMillis. collections limits it to the named collections; any
// other field is ignored, as MongoDB ignores it. Secondaries answer it, so
// that members' hashes can be compared.
func msgDBHash(ctx context.Context, c *conn, req *request) (bson.D, error) {
	began := time.Now()
	var only []string
	if v, err := req.cmd.LookupErr("collections"); err == nil && v.Type == bson.TypeArray {
		vals, _ := v.Array().Values()
		for _, e := range vals {
			s, ok := e.StringValueOK()
			if !ok {
				return nil, errorf(mongoerr.UnknownError, "collections entries have to be strings")
			}
			only = append(only, s)
		}
	}
	if _, err := req.cmd.LookupErr("$_internalReadAtClusterTime"); err == nil {
		return nil, errorf(mongoerr.InvalidOptions, "The '$_internalReadAtClusterTime' option is only supported when testing commands are enabled")
	}
	if doc, ok := req.cmd.Lookup("readConcern").DocumentOK(); ok {
		if level, ok := doc.Lookup("level").StringValueOK(); ok && level != "local" {
			return nil, errorf(mongoerr.InvalidOptions, "read concern not supported")
		}
	}
	h, err := c.s.db.DBHash(ctx, req.db, only)
	if err != nil {
		return nil, err
	}
	colls, uuids := bson.D{}, bson.D{}
	for _, n := range h.Names {
		colls = append(colls, bson.E{Key: n, Value: h.Collections[n]})
		uuids = append(uuids, bson.E{Key: n, Value: h.UUIDs[n]})
	}
	capped := bson.A{}
	for _, n := range h.Capped {
		capped = append(capped, n)
	}
	return bson.D{
		{Key: "host", Value: c.s.host},
		{Key: "collections", Value: colls},
		{Key: "capped", Value: capped},
		{Key: "uuids", Value: uuids},
		{Key: "md5", Value: h.MD5},
		{Key: "timeMillis", Value: time.Since(began).Milliseconds()},
	}, nil
}
