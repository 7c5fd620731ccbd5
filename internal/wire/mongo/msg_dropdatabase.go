package mongo

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// msgDropDatabase answers dropDatabase: {dropped: db}.
func msgDropDatabase(ctx context.Context, c *conn, req *request) (bson.D, error) {
	err := fields(req.cmd, func(el bson.RawElement) error {
		return unknownField("dropDatabase", el.Key())
	})
	if err != nil {
		return nil, err
	}
	uuids := c.s.db.CollectionUUIDs(req.db)
	if err := c.s.db.DropDatabase(ctx, req.db); err != nil {
		return nil, err
	}
	for coll, uuid := range uuids {
		c.s.collectionDropped(req.db, coll, uuid)
		if view, ok := strings.CutPrefix(coll, docdb.BucketsPrefix); ok {
			c.s.collectionDropped(req.db, view, uuid)
		}
	}
	c.s.metrics.collLatencies.forget(req.db + ".")
	return bson.D{{Key: "dropped", Value: req.db}}, nil
}
