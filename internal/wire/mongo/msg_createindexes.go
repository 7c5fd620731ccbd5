package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/policy"
)

// msgCreateIndexes answers createIndexes: {createdCollectionAutomatically,
// numIndexesBefore, numIndexesAfter, note?}. With mayfly's dryRun: true it
// validates and previews instead (docdb.CreateIndexesDryRun): the preview's
// fields (dryRun, wouldExpire, oldestDue, newestDue,
// estimatedDeleteMillis) come first.
func msgCreateIndexes(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var raws []bson.D
	have, dryRun := false, false
	err = fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "indexes":
			have = true
			raws, err = docsArg("createIndexes", el)
		case "dryRun":
			dryRun, err = boolArg("createIndexes", el)
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
	if len(raws) == 0 {
		return nil, errorf(mongoerr.BadValue, "Must specify at least one index to create")
	}
	specs := make([]docdb.IndexSpec, len(raws))
	for i, raw := range raws {
		if specs[i], err = parseIndexSpec(raw); err != nil {
			return nil, err
		}
	}
	var res docdb.CreateIndexesResult
	var preview bson.D
	if dryRun {
		var dr policy.DryRun
		res, dr, err = c.s.db.CreateIndexesDryRun(ctx, req.db, coll, specs)
		preview = dr.Fields()
	} else {
		res, err = c.s.db.CreateIndexes(ctx, req.db, coll, specs)
	}
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
	return append(preview, out...), nil
}
