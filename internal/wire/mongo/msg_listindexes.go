package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgListIndexes answers listIndexes with a cursor over the collection's
// index specs.
func msgListIndexes(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	batchSize := int64(defaultBatchSize)
	err = fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "cursor":
			batchSize, err = cursorBatchSize("listIndexes", el, batchSize)
		case "includeBuildUUIDs", "includeIndexBuildInfo":
			_, err = boolArg("listIndexes", el)
		default:
			err = unknownField("listIndexes", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	specs, err := c.s.db.ListIndexes(ctx, req.db, coll)
	if err != nil {
		return nil, err
	}
	src, err := docsCursor(specs)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(ctx, req, src, namespace(req.db, coll), batchSize, false, false, "")
}
