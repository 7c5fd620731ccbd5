package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDropIndexes answers dropIndexes: {nIndexesWas}. index is "*", a name,
// a key pattern or a list of names.
func msgDropIndexes(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var dr docdb.DropIndexesRequest
	have := false
	err = fields(req.cmd, func(el bson.RawElement) error {
		if k := el.Key(); k != "index" {
			return unknownField("dropIndexes", k)
		}
		have = true
		var err error
		dr, err = dropIndexesArg(el.Value())
		return err
	})
	if err != nil {
		return nil, err
	}
	if !have {
		return nil, missingField("dropIndexes", "index")
	}
	n, err := c.s.db.DropIndexes(ctx, req.db, coll, dr)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(n)}}, nil
}

// dropIndexesArg parses dropIndexes' index: "*", a name, a key pattern or a
// list of names.
func dropIndexesArg(v bson.RawValue) (docdb.DropIndexesRequest, error) {
	var dr docdb.DropIndexesRequest
	switch v.Type {
	case bson.TypeString:
		if s := v.StringValue(); s == "*" {
			dr.All = true
		} else {
			dr.Names = []string{s}
		}
	case bson.TypeEmbeddedDocument:
		d, err := decodeD(v.Document())
		if err != nil {
			return dr, err
		}
		dr.KeyPattern = d
	case bson.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return dr, errorf(mongoerr.InvalidBSON, "invalid index list: %v", err)
		}
		dr.Names = make([]string, len(vals))
		for i, x := range vals {
			s, ok := x.StringValueOK()
			if !ok {
				return dr, typeMismatch("dropIndexes", "index."+itoa(i), x.Type, "string")
			}
			dr.Names[i] = s
		}
	default:
		return dr, typeMismatch("dropIndexes", "index", v.Type, "[string, object, array]'")
	}
	return dr, nil
}
