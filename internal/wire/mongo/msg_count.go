package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// parseCount parses a count command document (also the inner command of
// explain).
func parseCount(db string, cmd bson.Raw) (string, docdb.CountRequest, error) {
	var cr docdb.CountRequest
	coll, err := commandCollection(db, cmd)
	if err != nil {
		return "", cr, err
	}
	err = fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "query":
			cr.Filter, err = optDocArg("count", el)
		case "skip":
			cr.Skip, err = int64Arg("count", el)
			if err == nil {
				err = nonNegative("skip", cr.Skip)
			}
		case "limit":
			cr.Limit, err = int64Arg("count", el)
			if cr.Limit < 0 {
				// A negative limit counts as its absolute value.
				cr.Limit = -cr.Limit
			}
		case "hint":
			cr.Hint, err = hintArg("count", el)
		case "collation":
			cr.Collation, err = collationArg("count", el)
		case "fields", "encryptionInformation", "mirrored", "sampleId":
		default:
			err = unknownField("count", k)
		}
		return err
	})
	return coll, cr, err
}

// msgCount answers count: {n}.
func msgCount(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, cr, err := parseCount(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	n, err := c.s.db.Count(ctx, req.db, coll, cr)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: countValue(n)}}, nil
}
