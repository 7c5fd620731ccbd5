package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// parseDistinct parses a distinct command document (also the inner
// command of explain).
func parseDistinct(db string, cmd bson.Raw) (string, docdb.DistinctRequest, error) {
	var dr docdb.DistinctRequest
	coll, err := commandCollection(db, cmd)
	if err != nil {
		return "", dr, err
	}
	haveKey := false
	err = fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "key":
			haveKey = true
			dr.Key, err = stringArg("distinct", el)
		case "query":
			dr.Filter, err = optDocArg("distinct", el)
		case "hint":
			dr.Hint, err = hintArg("distinct", el)
		case "collation":
			dr.Collation, err = collationArg("distinct", el)
		case "mirrored", "sampleId":
		default:
			err = unknownField("distinct", k)
		}
		return err
	})
	if err == nil && !haveKey {
		err = missingField("distinct", "key")
	}
	return coll, dr, err
}

// msgDistinct answers distinct: {values}. Values past the reply size limit
// fail as in MongoDB.
func msgDistinct(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, dr, err := parseDistinct(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	values, err := c.s.db.Distinct(ctx, req.db, coll, dr)
	if err != nil {
		return nil, err
	}
	if values == nil {
		values = bson.A{}
	}
	b, err := bson.Marshal(bson.D{{Key: "values", Value: values}})
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBSONObjectSize {
		return nil, errorf(mongoerr.Location17217, "distinct too big, 16mb cap")
	}
	return bson.D{{Key: "values", Value: bson.Raw(b).Lookup("values")}}, nil
}
