package mongo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Tailable cursors (find with tailable, and awaitData): the cursor stays
// open past the last document of a capped collection, and each getMore
// returns what was inserted since. An awaitData cursor's getMore that finds
// nothing waits up to maxTimeMS (one second by default) for a commit to
// append something; a plain tailable cursor's returns at once, and only an
// awaitData cursor's getMore may give maxTimeMS.

// errNotAwaitData is MongoDB's refusal of maxTimeMS on the getMore of a
// cursor that does not await data.
var errNotAwaitData = errorf(mongoerr.BadValue, "cannot set maxTimeMS on getMore command for a non-awaitData cursor")

// checkTailable applies MongoDB's rules on the options of a tailable find.
func (f *findCommand) checkTailable() error {
	if f.awaitData && !f.tailable {
		return errorf(mongoerr.FailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	}
	if !f.tailable {
		return nil
	}
	if s := f.req.Sort; len(s) > 0 && (len(s) != 1 || s[0].Key != "$natural" || !isOne(s[0].Value)) {
		return errorf(mongoerr.BadValue, "cannot use tailable option with a sort other than {$natural: 1}")
	}
	if f.singleBatch {
		return errorf(mongoerr.BadValue, "cannot use tailable option with the 'singleBatch' option")
	}
	return nil
}

// isOne reports a number equal to 1.
func isOne(v any) bool {
	f, ok := catalog.ToFloat(v)
	return ok && f == 1
}

// findTailable answers a tailable find: the first batch, and a cursor that
// stays open unless the collection was empty.
func (c *conn) findTailable(ctx context.Context, req *request, f *findCommand) (bson.D, error) {
	src, err := c.s.db.FindTailable(ctx, req.db, f.coll, f.req, f.awaitData)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(ctx, req, src, namespace(req.db, f.coll), f.batchSize, f.singleBatch, f.noTimeout, findExecutorContext)
}

// tailableKept reports whether a cursor whose source has no more documents
// for now stays open: a tailable cursor does, unless its collection had no
// documents when it was opened (MongoDB keeps no cursor then).
func tailableKept(src docdb.Cursor) bool {
	tc, ok := src.(*docdb.TailCursor)
	return ok && !tc.Empty()
}

// tailGetMore answers getMore on a tailable cursor.
func tailGetMore(ctx context.Context, c *conn, req *request, cur *cursor, tc *docdb.TailCursor, batchSize int64) (bson.D, error) {
	var wait time.Duration
	if tc.AwaitData() {
		wait = defaultAwait
	}
	if v, err := req.cmd.LookupErr("maxTimeMS"); err == nil {
		if !tc.AwaitData() {
			c.s.cursors.checkin(cur, 0)
			return nil, errNotAwaitData
		}
		ms, err := maxTimeMS("getMore", v)
		if err != nil {
			c.s.cursors.checkin(cur, 0)
			return nil, err
		}
		if ms > 0 {
			wait = time.Duration(ms) * time.Millisecond
		}
	}
	deadline := time.Now().Add(wait)
	for {
		batch, _, err := nextBatch(ctx, cur, batchSize)
		if err != nil {
			c.s.cursors.remove(cur)
			return nil, err
		}
		left := time.Until(deadline)
		if len(batch) > 0 || left <= 0 {
			c.s.metrics.docReturned.Add(int64(len(batch)))
			c.s.cursors.checkin(cur, len(batch))
			return cursorReply("nextBatch", batch, cur.id, cur.ns), nil
		}
		tc.Wait(ctx, left)
		if ctx.Err() != nil {
			// maxTimeMS bounds the command too: its time is up with
			// nothing new.
			c.s.cursors.checkin(cur, 0)
			return cursorReply("nextBatch", nil, cur.id, cur.ns), nil
		}
	}
}
