package mongo

import (
	"bytes"
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// findCommand is a parsed find.
type findCommand struct {
	coll        string
	req         docdb.FindRequest
	batchSize   int64
	singleBatch bool
	noTimeout   bool
	// tailable and awaitData open a tailable cursor (cursors_tailable.go).
	tailable, awaitData bool
}

// parseFind parses a find command document (also the inner command of
// explain).
func parseFind(db string, cmd bson.Raw) (*findCommand, error) {
	f := &findCommand{batchSize: defaultBatchSize}
	first := cmd.Index(0).Value()
	coll, ok := first.StringValueOK()
	if !ok {
		return nil, errorf(mongoerr.InvalidNamespace, "collection name has invalid type %s", typeName(first.Type))
	}
	if coll == "" {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.'", db)
	}
	f.coll = coll
	err := fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := elementKey(el); string(k) {
		case "filter":
			f.req.Filter, err = optDocArg("find", el)
		case "projection":
			f.req.Projection, err = optDocArg("find", el)
		case "sort":
			f.req.Sort, err = optDocArg("find", el)
		case "hint":
			f.req.Hint, err = hintArg("find", el)
		case "skip":
			f.req.Skip, err = int64Arg("find", el)
			if err == nil {
				err = nonNegative("skip", f.req.Skip)
			}
		case "limit":
			f.req.Limit, err = int64Arg("find", el)
			if err == nil {
				err = nonNegative("limit", f.req.Limit)
			}
		case "batchSize":
			f.batchSize, err = int64Arg("find", el)
			if err == nil {
				err = nonNegative("batchSize", f.batchSize)
			}
		case "singleBatch":
			f.singleBatch, err = boolArg("find", el)
		case "noCursorTimeout":
			f.noTimeout, err = boolArg("find", el)
		case "collation":
			f.req.Collation, err = collationArg("find", el)
		case "allowDiskUse":
			var b bool
			b, err = boolArg("find", el)
			f.req.AllowDiskUse = &b
		case "allowPartialResults", "oplogReplay", "readOnce", "term":
			// No effect on a standalone server.
		case "let":
			f.req.Let, err = optDocArg("find", el)
		case "returnKey":
			f.req.ReturnKey, err = boolArg("find", el)
		case "showRecordId":
			f.req.ShowRecordID, err = boolArg("find", el)
		case "tailable":
			f.tailable, err = boolArg("find", el)
		case "awaitData":
			f.awaitData, err = boolArg("find", el)
		case "min", "max",
			"$_requestResumeToken", "$_resumeAfter", "resumeAfter", "startAt":
			if truthy(el.Value()) {
				err = notSupported("find", string(k))
			}
		default:
			err = unknownField("find", string(k))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := f.checkTailable(); err != nil {
		return nil, err
	}
	if f.req.Limit > 0 && (f.batchSize == defaultBatchSize || f.batchSize > f.req.Limit) {
		// A limit smaller than the batch needs only one batch.
		f.batchSize = f.req.Limit
	}
	return f, nil
}

// msgFind answers find: the first batch and, if results remain, a cursor
// for getMore.
func msgFind(ctx context.Context, c *conn, req *request) (bson.D, error) {
	c.s.metrics.opQuery.Add(1)
	f, err := parseFind(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	if f.tailable {
		return c.findTailable(ctx, req, f)
	}
	src, err := c.s.db.Find(ctx, req.db, f.coll, f.req)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(ctx, req, src, namespace(req.db, f.coll), f.batchSize, f.singleBatch, f.noTimeout, findExecutorContext)
}

// firstBatch answers a command that opens a cursor: it reads the first
// batch from src and registers the cursor when results remain (and the
// client did not ask for a single batch). An error reading the batch is
// worded with execContext (executorError).
func (c *conn) firstBatch(ctx context.Context, req *request, src docdb.Cursor, ns string, batchSize int64, singleBatch, noTimeout bool, execContext string) (bson.D, error) {
	cur := &cursor{db: req.db, ns: ns, src: src, noTimeout: noTimeout}
	batch, exhausted, err := nextBatch(ctx, cur, batchSize)
	if err != nil {
		src.Close()
		return nil, executorError(execContext, err)
	}
	c.s.metrics.docReturned.Add(int64(len(batch)))
	if exhausted && tailableKept(src) {
		exhausted = false
	}
	var id int64
	if exhausted || singleBatch {
		src.Close()
	} else {
		cur.lsid = lsidOf(req)
		cur.owner = c.userString()
		cur.created = c.s.now()
		cur.origin = bytes.Clone(req.cmd)
		c.s.cursors.add(cur)
		id = cur.id
		c.s.cursors.checkin(cur, len(batch))
	}
	return cursorReply("firstBatch", batch, id, ns), nil
}
