package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgCreate answers create: the document model validates the options
// (validator, clusteredIndex, expireAfterSeconds, ...) and refuses the ones
// it does not support.
func msgCreate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	opts, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	if err := c.s.db.CreateCollection(ctx, req.db, coll, opts); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
