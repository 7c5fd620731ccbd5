package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgCompact answers compact: {bytesFreed}, after compacting the
// collection's key spans in the store (docdb.Engine.Compact). force and
// comment are accepted; compact runs on any member.
func msgCompact(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "force":
			_, err := boolArg("compact", el)
			return err
		default:
			return unknownField("compact", k)
		}
	})
	if err != nil {
		return nil, err
	}
	freed, err := c.s.db.Compact(ctx, req.db, coll)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "bytesFreed", Value: freed}}, nil
}
