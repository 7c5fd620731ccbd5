package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgGetMore answers getMore: the next batch of an open cursor. The cursor
// is closed (id 0) once it has returned everything.
func msgGetMore(ctx context.Context, c *conn, req *request) (bson.D, error) {
	c.s.metrics.opGetMore.Add(1)
	v := req.first()
	if v.Type != bson.TypeInt64 {
		return nil, typeMismatch("getMore", "getMore", v.Type, "long")
	}
	id := v.Int64()
	var coll string
	haveColl := false
	batchSize := int64(-1)
	err := fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "collection":
			coll, err = stringArg("getMore", el)
			haveColl = true
		case "batchSize":
			batchSize, err = int64Arg("getMore", el)
			if err == nil {
				err = nonNegative("batchSize", batchSize)
			}
			if batchSize == 0 {
				batchSize = -1
			}
		case "term", "lastKnownCommittedOpTime", "includeQueryStatsMetrics", "maxTimeMS":
		default:
			err = unknownField("getMore", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveColl {
		return nil, missingField("getMore", "collection")
	}
	if coll == "" {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.'", req.db)
	}
	ns := namespace(req.db, coll)
	cur, err := c.s.cursors.checkout(id, ns, c.userString())
	if err != nil {
		return nil, err
	}
	if err := c.checkCursorSession(cur, req); err != nil {
		c.s.cursors.release(cur)
		return nil, err
	}
	if err := c.failCheckedOutGetMore(cur); err != nil {
		return nil, err
	}
	if sc, ok := cur.src.(*streamCursor); ok {
		return streamGetMore(ctx, c, req, cur, sc, batchSize)
	}
	if tc, ok := cur.src.(*docdb.TailCursor); ok {
		return tailGetMore(ctx, c, req, cur, tc, batchSize)
	}
	batch, exhausted, err := nextBatch(ctx, cur, batchSize)
	if err != nil {
		c.s.cursors.remove(cur)
		return nil, executorError(getMoreExecutorContext, err)
	}
	c.s.metrics.docReturned.Add(int64(len(batch)))
	if exhausted {
		c.s.cursors.remove(cur)
		id = 0
	} else {
		c.s.cursors.checkin(cur, len(batch))
	}
	return cursorReply("nextBatch", batch, id, ns), nil
}
