package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgConvertToCapped answers {convertToCapped: coll, size}.
func msgConvertToCapped(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	cmd, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	var size *int64
	for _, el := range cmd[1:] {
		if genericArgs[el.Key] {
			continue
		}
		switch el.Key {
		case "size":
			n, given, err := cappedSizeArg("convertToCapped", "size", el.Value)
			if err != nil {
				return nil, err
			}
			if given {
				size = &n
			}
		default:
			return nil, unknownField("convertToCapped", el.Key)
		}
	}
	if size == nil {
		return nil, missingField("convertToCapped", "size")
	}
	if err := c.s.db.ConvertToCapped(ctx, req.db, coll, *size); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
