package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgCollMod answers collMod: the document model changes the options
// (validator, index TTL, hidden, ...) and returns the reply's fields
// (expireAfterSeconds_old/_new, hidden_old/_new).
func msgCollMod(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	cmd, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	out, err := c.s.db.CollMod(ctx, req.db, coll, cmd)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = bson.D{}
	}
	return out, nil
}
