package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgCreateIndexes answers createIndexes: {createdCollectionAutomatically,
// numIndexesBefore, numIndexesAfter, note?}.
func msgCreateIndexes(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var specs []bson.D
	have := false
	err = fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "indexes":
			have = true
			specs, err = docsArg("createIndexes", el)
		case "commitQuorum", "ignoreUnknownIndexOptions", "isTimeseriesNamespace":
			if k == "ignoreUnknownIndexOptions" && truthy(el.Value()) {
				err = notSupported("createIndexes", k)
			}
		default:
			err = unknownField("createIndexes", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !have {
		return nil, missingField("createIndexes", "indexes")
	}
	if len(specs) == 0 {
		return nil, errorf(mongoerr.BadValue, "Must specify at least one index to create")
	}
	res, err := c.s.db.CreateIndexes(ctx, req.db, coll, specs)
	if err != nil {
		return nil, err
	}
	out := bson.D{
		{Key: "numIndexesBefore", Value: int32(res.NumIndexesBefore)},
		{Key: "numIndexesAfter", Value: int32(res.NumIndexesAfter)},
	}
	if res.CreatedCollectionAutomatically {
		out = append(bson.D{{Key: "createdCollectionAutomatically", Value: true}}, out...)
	}
	if res.Note != "" {
		out = append(out, bson.E{Key: "note", Value: res.Note})
	}
	return out, nil
}
