package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgDropDatabase answers dropDatabase: {dropped: db}.
func msgDropDatabase(ctx context.Context, c *conn, req *request) (bson.D, error) {
	err := fields(req.cmd, func(el bson.RawElement) error {
		return unknownField("dropDatabase", el.Key())
	})
	if err != nil {
		return nil, err
	}
	if err := c.s.db.DropDatabase(ctx, req.db); err != nil {
		return nil, err
	}
	c.s.metrics.collLatencies.forget(req.db + ".")
	return bson.D{{Key: "dropped", Value: req.db}}, nil
}
