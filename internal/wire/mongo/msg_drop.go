package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgDrop answers drop: {nIndexesWas, ns} for a collection that existed,
// and a plain {ok: 1} for one that did not (MongoDB 7.0 no longer fails
// with NamespaceNotFound).
func msgDrop(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	err = fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "collectionUUID":
			return notSupported("drop", k)
		default:
			return unknownField("drop", k)
		}
	})
	if err != nil {
		return nil, err
	}
	nIndexes := 0
	indexes, err := c.s.db.ListIndexes(ctx, req.db, coll)
	switch {
	case err == nil:
		nIndexes = len(indexes)
	case mongoerr.CodeOf(err) != mongoerr.NamespaceNotFound:
		return nil, err
	}
	uuids := c.s.db.CollectionUUIDs(req.db)
	uuid, ok := uuids[coll]
	if !ok {
		uuid = uuids[docdb.BucketsPrefix+coll] // a time-series collection
	}
	existed, err := c.s.db.DropCollection(ctx, req.db, coll)
	if err != nil {
		return nil, err
	}
	if existed {
		c.s.collectionDropped(req.db, coll, uuid)
	}
	c.s.metrics.collLatencies.forget(namespace(req.db, coll))
	if !existed {
		return bson.D{}, nil
	}
	return bson.D{
		{Key: "nIndexesWas", Value: int32(nIndexes)},
		{Key: "ns", Value: namespace(req.db, coll)},
	}, nil
}
