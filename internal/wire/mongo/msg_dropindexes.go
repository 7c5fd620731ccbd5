package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDropIndexes answers dropIndexes: {nIndexesWas}. index is "*", a name,
// a key pattern or a list of names.
func msgDropIndexes(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	var index any
	have := false
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "index":
			have = true
			v := el.Value()
			switch v.Type {
			case bson.TypeString:
				index = v.StringValue()
			case bson.TypeEmbeddedDocument:
				d, err := decodeD(v.Document())
				if err != nil {
					return err
				}
				index = d
			case bson.TypeArray:
				vals, err := v.Array().Values()
				if err != nil {
					return errorf(mongoerr.InvalidBSON, "invalid index list: %v", err)
				}
				names := make([]string, len(vals))
				for i, x := range vals {
					s, ok := x.StringValueOK()
					if !ok {
						return typeMismatch("dropIndexes", "index."+itoa(i), x.Type, "string")
					}
					names[i] = s
				}
				index = names
			default:
				return typeMismatch("dropIndexes", "index", v.Type, "[string, object, array]'")
			}
			return nil
		default:
			return unknownField("dropIndexes", k)
		}
	})
	if err != nil {
		return nil, err
	}
	if !have {
		return nil, missingField("dropIndexes", "index")
	}
	n, err := c.s.db.DropIndexes(ctx, req.db, coll, index)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(n)}}, nil
}
