package mongo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// defaultAwait is how long a change stream's getMore waits for events when
// it names no maxTimeMS, as MongoDB's awaitData cursors do.
const defaultAwait = time.Second

// streamCursor is the source of a change stream's cursor: getMore asks it
// for batches directly (nextStreamBatch), waiting for commits.
type streamCursor struct{ cs *docdb.ChangeStream }

func (*streamCursor) Next(context.Context) (bson.Raw, error) { return nil, io.EOF }
func (*streamCursor) Close()                                 {}

// parseChangeStream parses the $changeStream stage's options for a stream
// on db.coll (coll empty: aggregate: 1).
func parseChangeStream(db, coll string, arg any, rest []bson.D) (docdb.ChangeStreamRequest, error) {
	req := docdb.ChangeStreamRequest{DB: db, Coll: coll, Pipeline: rest}
	spec, ok := arg.(bson.D)
	if !ok {
		return req, errorf(mongoerr.TypeMismatch, "the $changeStream stage must be an object, but found type %s", valueTypeName(arg))
	}
	str := func(e bson.E) (string, error) {
		s, ok := e.Value.(string)
		if !ok {
			return "", errorf(mongoerr.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'string'", e.Key, valueTypeName(e.Value))
		}
		return s, nil
	}
	token := func(e bson.E) (bson.Raw, error) {
		d, ok := e.Value.(bson.D)
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'object'", e.Key, valueTypeName(e.Value))
		}
		return bson.Marshal(d)
	}
	flag := func(e bson.E) (bool, error) {
		b, ok := e.Value.(bool)
		if !ok {
			return false, errorf(mongoerr.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'bool'", e.Key, valueTypeName(e.Value))
		}
		return b, nil
	}
	var err error
	for _, e := range spec {
		switch e.Key {
		case "fullDocument":
			req.FullDocument, err = str(e)
		case "fullDocumentBeforeChange":
			req.FullDocumentBeforeChange, err = str(e)
		case "resumeAfter":
			req.ResumeAfter, err = token(e)
		case "startAfter":
			req.StartAfter, err = token(e)
		case "startAtOperationTime":
			ts, ok := e.Value.(bson.Timestamp)
			if !ok {
				return req, errorf(mongoerr.TypeMismatch, "BSON field '$changeStream.startAtOperationTime' is the wrong type '%s', expected type 'timestamp'", valueTypeName(e.Value))
			}
			req.StartAtOperationTime = &ts
		case "allChangesForCluster":
			req.AllForCluster, err = flag(e)
		case "showExpandedEvents":
			req.ShowExpandedEvents, err = flag(e)
		case "showSystemEvents", "showMigrationEvents", "showRawUpdateDescription", "allowToRunOnConfigDB", "allowToRunOnSystemNS":
			_, err = flag(e)
		default:
			err = errorf(mongoerr.IDLUnknownField, "BSON field '$changeStream.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return req, err
		}
	}
	switch {
	case req.AllForCluster && (db != "admin" || coll != ""):
		return req, errorf(mongoerr.InvalidNamespace, "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name")
	case !req.AllForCluster && db == "admin":
		return req, errorf(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal admin database")
	}
	return req, nil
}

// msgChangeStream answers an aggregate whose pipeline starts with
// $changeStream: it opens the stream and a cursor on it whose first batch
// holds the events already committed after the start point.
func msgChangeStream(ctx context.Context, c *conn, req *request, a *aggregateCommand, ns string) (bson.D, error) {
	coll := a.coll
	if a.collectionless {
		coll = ""
	}
	creq, err := parseChangeStream(req.db, coll, a.req.Pipeline[0][0].Value, a.req.Pipeline[1:])
	if err != nil {
		return nil, err
	}
	cs, err := c.s.db.WatchChanges(ctx, creq)
	if err != nil {
		return nil, err
	}
	batch, err := cs.NextBatch(ctx, int(a.batchSize), 0)
	if err != nil {
		return nil, err
	}
	c.s.metrics.docReturned.Add(int64(len(batch)))
	var id int64
	if !cs.Invalidated() {
		cur := &cursor{db: req.db, ns: ns, src: &streamCursor{cs: cs}}
		cur.lsid = lsidOf(req)
		cur.created = c.s.now()
		cur.origin = bytes.Clone(req.cmd)
		c.s.cursors.add(cur)
		id = cur.id
		c.s.cursors.checkin(cur, len(batch))
	}
	return streamReply("firstBatch", batch, cs.PostBatchResumeToken(), id, ns)
}

// streamGetMore answers getMore on a change stream's cursor: the events
// after its position, waiting up to maxTimeMS (one second by default) for
// a commit to bring some when there are none.
func streamGetMore(ctx context.Context, c *conn, req *request, cur *cursor, sc *streamCursor, batchSize int64) (bson.D, error) {
	wait := defaultAwait
	if v, err := req.cmd.LookupErr("maxTimeMS"); err == nil {
		ms, err := maxTimeMS("getMore", v)
		if err != nil {
			c.s.cursors.checkin(cur, 0)
			return nil, err
		}
		if ms > 0 {
			wait = time.Duration(ms) * time.Millisecond
		}
	}
	batch, err := sc.cs.NextBatch(ctx, int(batchSize), wait)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		c.s.cursors.remove(cur)
		return nil, withChangeStreamLabel(err)
	}
	c.s.metrics.docReturned.Add(int64(len(batch)))
	id := cur.id
	if sc.cs.Invalidated() {
		c.s.cursors.remove(cur)
		id = 0
	} else {
		c.s.cursors.checkin(cur, len(batch))
	}
	return streamReply("nextBatch", batch, sc.cs.PostBatchResumeToken(), id, cur.ns)
}

// streamReply is a change stream cursor's reply: {cursor: {firstBatch |
// nextBatch, postBatchResumeToken, id, ns}}.
func streamReply(batchKey string, batch []bson.Raw, token bson.D, id int64, ns string) (bson.D, error) {
	tok, err := bson.Marshal(token)
	if err != nil {
		return nil, err
	}
	start, out := bsoncore.AppendDocumentStart(nil)
	arr, out := bsoncore.AppendArrayElementStart(out, batchKey)
	for i, d := range batch {
		out = bsoncore.AppendDocumentElement(out, itoa(i), d)
	}
	out, _ = bsoncore.AppendArrayEnd(out, arr)
	out = bsoncore.AppendDocumentElement(out, "postBatchResumeToken", tok)
	out = bsoncore.AppendInt64Element(out, "id", id)
	out = bsoncore.AppendStringElement(out, "ns", ns)
	out, _ = bsoncore.AppendDocumentEnd(out, start)
	return bson.D{{Key: "cursor", Value: bson.Raw(out)}}, nil
}

// preAndPostImagesArg parses create's and collMod's
// changeStreamPreAndPostImages: {enabled: bool}.
func preAndPostImagesArg(cmd string, v any) (bool, error) {
	d, ok := v.(bson.D)
	if !ok {
		return false, errorf(mongoerr.TypeMismatch, "BSON field '%s.changeStreamPreAndPostImages' is the wrong type '%s', expected type 'object'", cmd, valueTypeName(v))
	}
	enabled, have := false, false
	for _, e := range d {
		if e.Key != "enabled" {
			return false, errorf(mongoerr.IDLUnknownField, "BSON field '%s.changeStreamPreAndPostImages.%s' is an unknown field.", cmd, e.Key)
		}
		b, ok := e.Value.(bool)
		if !ok {
			return false, errorf(mongoerr.TypeMismatch, "BSON field '%s.changeStreamPreAndPostImages.enabled' is the wrong type '%s', expected type 'bool'", cmd, valueTypeName(e.Value))
		}
		enabled, have = b, true
	}
	if !have {
		return false, errorf(mongoerr.IDLFailedToParse, "BSON field '%s.changeStreamPreAndPostImages.enabled' is missing but a required field", cmd)
	}
	return enabled, nil
}
