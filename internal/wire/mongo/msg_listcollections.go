package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgListCollections answers listCollections with a cursor over
// db.$cmd.listCollections.
func msgListCollections(ctx context.Context, c *conn, req *request) (bson.D, error) {
	var filter bson.D
	nameOnly := false
	batchSize := int64(defaultBatchSize)
	err := fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "filter":
			filter, err = optDocArg("listCollections", el)
		case "nameOnly":
			nameOnly, err = boolArg("listCollections", el)
		case "authorizedCollections", "includePendingDrops":
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
	entries, err := c.s.db.ListCollections(ctx, req.db, filter, nameOnly)
	if err != nil {
		return nil, err
	}
	src, err := docsCursor(entries)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(ctx, req, src, req.db+".$cmd.listCollections", batchSize, false, false)
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
