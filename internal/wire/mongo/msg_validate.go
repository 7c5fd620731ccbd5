package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgValidate answers validate: the storage check of the collection (every
// document has exactly the index entries its keys call for, every entry
// belongs to a document producing it, the counters equal what is stored),
// in MongoDB 7's reply shape. full, background, repair and the other
// options change nothing: the check is always the full one and never
// repairs. Counts are appended as MongoDB's appendNumber does (countValue).
func msgValidate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "full", "background", "repair", "metadata", "checkBSONConformance", "enforceFastCount", "scandata":
			_, err := boolArg("validate", el)
			return err
		default:
			return unknownField("validate", k)
		}
	})
	if err != nil {
		return nil, err
	}
	v, err := c.s.db.Validate(ctx, req.db, coll)
	if err != nil {
		return nil, err
	}
	keys := bson.D{}
	details := bson.D{}
	for _, ix := range v.KeysPerIndex {
		keys = append(keys, bson.E{Key: ix.Name, Value: countValue(ix.Keys)})
		details = append(details, bson.E{Key: ix.Name, Value: bson.D{{Key: "valid", Value: v.Valid()}}})
	}
	errs := bson.A{}
	for _, e := range v.Errors {
		errs = append(errs, e)
	}
	return bson.D{
		{Key: "ns", Value: namespace(req.db, coll)},
		{Key: "uuid", Value: v.UUID},
		{Key: "nInvalidDocuments", Value: int32(0)},
		{Key: "nNonCompliantDocuments", Value: int32(0)},
		{Key: "nrecords", Value: countValue(v.NRecords)},
		{Key: "nIndexes", Value: int32(len(v.KeysPerIndex))},
		{Key: "keysPerIndex", Value: keys},
		{Key: "indexDetails", Value: details},
		{Key: "valid", Value: v.Valid()},
		{Key: "repaired", Value: false},
		{Key: "warnings", Value: bson.A{}},
		{Key: "errors", Value: errs},
		{Key: "extraIndexEntries", Value: bson.A{}},
		{Key: "missingIndexEntries", Value: bson.A{}},
		{Key: "corruptRecords", Value: bson.A{}},
	}, nil
}
