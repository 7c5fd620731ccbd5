package docdb

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Change streams read the change log (internal/docdb/events) and shape
// its records as MongoDB's change events. A stream watches one collection,
// one database (Coll empty) or the whole deployment (AllForCluster). Its
// position is the sequence number of the last record it consumed; the
// resume token of an event is that number (and whether the event is the
// invalidate that follows it, or which fragment of a split event it is), as
// a hex string in {_data: ...}.

// Full document modes of a change stream.
const (
	FullDocumentDefault       = "default"
	FullDocumentUpdateLookup  = "updateLookup"
	FullDocumentWhenAvailable = "whenAvailable"
	FullDocumentRequired      = "required"
	FullDocumentOff           = "off"
)

// ChangeStreamRequest opens a change stream.
type ChangeStreamRequest struct {
	DB, Coll      string
	AllForCluster bool
	// FullDocument is default, updateLookup, whenAvailable or required;
	// FullDocumentBeforeChange off, whenAvailable or required. Empty means
	// default and off.
	FullDocument, FullDocumentBeforeChange string
	// ResumeAfter and StartAfter are resume tokens ({_data: ...}); at most
	// one of them and StartAtOperationTime is set.
	ResumeAfter, StartAfter bson.Raw
	StartAtOperationTime    *bson.Timestamp
	// ShowExpandedEvents adds the expanded events (create, createIndexes,
	// dropIndexes, modify), collectionUUID, operationDescription and
	// updateDescription.disambiguatedPaths.
	ShowExpandedEvents bool
	// Pipeline holds the stages after $changeStream.
	Pipeline []bson.D
}

// stagesInChangeStream are the stages allowed after $changeStream.
var stagesInChangeStream = map[string]bool{
	"$match": true, "$project": true, "$addFields": true, "$set": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true, "$redact": true,
}

// ChangeStream is an open change stream. It is used by one request at a
// time.
type ChangeStream struct {
	e    *Engine
	req  ChangeStreamRequest
	pipe *aggregate.Pipeline
	// pos is the sequence number of the last record consumed.
	pos uint64
	// invalidated is set once the invalidate event was handed out.
	invalidated bool
	// pending holds events shaped but not yet handed out (an invalidate
	// after the drop that caused it, the fragments of a split event, the
	// rest of a full batch).
	pending []pendingEvent
	// split is set when the pipeline ends with $changeStreamSplitLargeEvent.
	split bool
	// prefilter holds the conditions of the leading $match that a record
	// answers without its content; nil when there are none.
	prefilter *query.Filter
	// resume is the fragment token the stream resumed from, until the
	// record it names is read again: that record's fragments up to it are
	// skipped.
	resume *changeToken
	// err is the error of an event after those already handed out, for
	// the next batch to return.
	err error
}

// pendingEvent is an event shaped but not handed out, and the token from
// which a stream resuming gives it again.
type pendingEvent struct {
	doc   bson.Raw
	after changeToken
}

// changeToken is a resume token's content: after the record seq; invalidate
// marks the invalidate event that follows it; fragmented marks fragment
// (counted from 0) of the record's split event.
type changeToken struct {
	seq        uint64
	invalidate bool
	fragmented bool
	fragment   uint32
}

// doc returns the token as the event's _id: the sequence number, the kind
// (00 event, 01 invalidate) and a fragment's number, in hex.
func (t changeToken) doc() bson.D {
	kind := "00"
	if t.invalidate {
		kind = "01"
	}
	data := fmt.Sprintf("%016X%s", t.seq, kind)
	if t.fragmented {
		data += fmt.Sprintf("%08X", t.fragment)
	}
	return bson.D{{Key: "_data", Value: data}}
}

// parseChangeToken parses a resume token.
func parseChangeToken(raw bson.Raw) (changeToken, error) {
	bad := mongoerr.New(mongoerr.InvalidResumeToken, "Invalid resume token")
	v, err := raw.LookupErr("_data")
	if err != nil {
		return changeToken{}, mongoerr.New(mongoerr.InvalidResumeToken, "Resume token must contain a '_data' field")
	}
	s, ok := v.StringValueOK()
	if !ok || len(s) != 18 && len(s) != 26 {
		return changeToken{}, bad
	}
	b, err := hex.DecodeString(s)
	if err != nil || b[8] > 1 || len(b) > 9 && b[8] != 0 {
		return changeToken{}, bad
	}
	seq, _ := strconv.ParseUint(s[:16], 16, 64)
	t := changeToken{seq: seq, invalidate: b[8] == 1}
	if len(b) > 9 {
		frag, _ := strconv.ParseUint(s[18:], 16, 32)
		t.fragmented, t.fragment = true, uint32(frag)
	}
	return t, nil
}

// WatchChanges opens a change stream.
func (e *Engine) WatchChanges(ctx context.Context, req ChangeStreamRequest) (*ChangeStream, error) {
	if e.events == nil {
		return nil, mongoerr.New(mongoerr.Location40573, "The $changeStream stage is only supported on replica sets")
	}
	switch req.FullDocument {
	case "":
		req.FullDocument = FullDocumentDefault
	case FullDocumentDefault, FullDocumentUpdateLookup, FullDocumentWhenAvailable, FullDocumentRequired:
	default:
		return nil, mongoerr.Newf(mongoerr.BadValue, "'%s' is not a valid value for $changeStream.fullDocument", req.FullDocument)
	}
	switch req.FullDocumentBeforeChange {
	case "":
		req.FullDocumentBeforeChange = FullDocumentOff
	case FullDocumentOff, FullDocumentWhenAvailable, FullDocumentRequired:
	default:
		return nil, mongoerr.Newf(mongoerr.BadValue, "'%s' is not a valid value for $changeStream.fullDocumentBeforeChange", req.FullDocumentBeforeChange)
	}
	starts := 0
	for _, set := range []bool{req.ResumeAfter != nil, req.StartAfter != nil, req.StartAtOperationTime != nil} {
		if set {
			starts++
		}
	}
	if starts > 1 {
		return nil, mongoerr.New(mongoerr.Location40674, "Only one type of resume option is allowed, but multiple were found.")
	}
	cs := &ChangeStream{e: e, req: req}
	stages := bson.A{}
	for i, st := range req.Pipeline {
		if len(st) != 1 {
			return nil, mongoerr.New(mongoerr.Location40323, "A pipeline stage specification object must contain exactly one field.")
		}
		if st[0].Key == "$changeStream" {
			return nil, mongoerr.New(mongoerr.Location40602, "$changeStream is only valid as the first stage in a pipeline")
		}
		if st[0].Key == splitStage {
			if d, ok := st[0].Value.(bson.D); !ok || len(d) != 0 {
				return nil, mongoerr.New(mongoerr.Location7182800, "$changeStreamSplitLargeEvent spec should be an empty object")
			}
			if i != len(req.Pipeline)-1 {
				return nil, mongoerr.New(mongoerr.Location7182802, "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
			}
			cs.split = true
			continue
		}
		if !stagesInChangeStream[st[0].Key] {
			if !aggregate.IsStage(st[0].Key) {
				return nil, mongoerr.Newf(mongoerr.Location40324, "Unrecognized pipeline stage name: '%s'", st[0].Key)
			}
			return nil, mongoerr.Newf(mongoerr.IllegalOperation, "%s is not permitted in a $changeStream pipeline", st[0].Key)
		}
		stages = append(stages, st)
	}
	if len(stages) > 0 {
		p, err := aggregate.Parse(stages, aggregate.Options{Now: e.opts.Now()})
		if err != nil {
			return nil, err
		}
		cs.pipe = p
		var whole bool
		cs.prefilter, whole = recordPrefilter(req.Pipeline)
		if whole && len(stages) == 1 {
			// The pipeline is a $match the prefilter answers.
			cs.pipe = nil
		}
	}
	lost := historyLost()
	switch {
	case req.ResumeAfter != nil || req.StartAfter != nil:
		raw := req.ResumeAfter
		if raw == nil {
			raw = req.StartAfter
		}
		t, err := parseChangeToken(raw)
		if err != nil {
			return nil, err
		}
		if t.invalidate && req.ResumeAfter != nil {
			return nil, mongoerr.New(mongoerr.InvalidResumeToken, "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.")
		}
		if t.fragmented && !cs.split {
			return nil, mongoerr.New(mongoerr.ChangeStreamFatalError,
				"To resume from a split event, the $changeStream pipeline must include a $changeStreamSplitLargeEvent stage")
		}
		if e.events.Lost(t.seq) {
			return nil, lost
		}
		cs.pos = t.seq
		if t.fragmented {
			// The split event's record is read again.
			cs.pos, cs.resume = t.seq-1, &t
		} else if !t.invalidate && req.Coll != "" {
			// Resuming after a drop or rename of the watched collection
			// gives its invalidate first.
			evs, err := e.events.Read(t.seq-1, t.seq, 1)
			if err != nil {
				return nil, err
			}
			if len(evs) == 1 && evs[0].Seq == t.seq && cs.invalidates(evs[0]) {
				doc, err := cs.invalidateEvent(evs[0])
				if err != nil {
					return nil, err
				}
				cs.pending = append(cs.pending, pendingEvent{doc: doc, after: t})
			}
		}
	case req.StartAtOperationTime != nil:
		ts := uint64(req.StartAtOperationTime.T)<<32 | uint64(req.StartAtOperationTime.I)
		if ts > 0 {
			ts--
		}
		if e.events.Lost(ts) {
			return nil, lost
		}
		cs.pos = ts
	default:
		cs.pos = e.events.Visible()
	}
	return cs, nil
}

// historyLost is the error of a stream whose next events are no longer
// in the log, as MongoDB gives it when the oplog rolled over.
func historyLost() error {
	return mongoerr.New(mongoerr.ChangeStreamHistoryLost, "PlanExecutor error during aggregation :: caused by :: Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
}

// Invalidated reports whether the stream handed out its invalidate event:
// it has nothing more.
func (cs *ChangeStream) Invalidated() bool { return cs.invalidated && len(cs.pending) == 0 }

// PostBatchResumeToken is the token from which a stream resumes after
// everything handed out so far.
func (cs *ChangeStream) PostBatchResumeToken() bson.D {
	if len(cs.pending) > 0 {
		// Events shaped but not handed out are given again on resuming.
		return cs.pending[0].after.doc()
	}
	if cs.resume != nil && cs.pos < cs.resume.seq {
		return cs.resume.doc()
	}
	return changeToken{seq: cs.pos, invalidate: cs.invalidated}.doc()
}

// readChunk is how many records NextBatch reads at a time.
const readChunk = 256

// maxStreamBatchBytes bounds the events of one batch, so that a reply stays
// within the 16 MB a BSON document may hold: a batch ends once its events
// reach this size, or before an event that would take it past this size
// (a batch holds at least one event).
const maxStreamBatchBytes = 16<<20 - 64<<10

// NextBatch returns the next events, at most max (max < 0: no limit).
// When there are none, it waits up to wait for a commit to bring some.
func (cs *ChangeStream) NextBatch(ctx context.Context, max int, wait time.Duration) ([]bson.Raw, error) {
	var batch []bson.Raw
	size := 0
	full := func() bool {
		return max >= 0 && len(batch) >= max || size >= maxStreamBatchBytes ||
			len(batch) > 0 && len(cs.pending) > 0 && size+len(cs.pending[0].doc) > maxStreamBatchBytes
	}
	deadline := time.Now().Add(wait)
	for {
		for len(cs.pending) > 0 && !full() {
			batch = append(batch, cs.pending[0].doc)
			size += len(cs.pending[0].doc)
			cs.pending = cs.pending[1:]
		}
		if cs.invalidated || full() {
			return batch, nil
		}
		if cs.err != nil {
			if len(batch) > 0 {
				return batch, nil
			}
			return nil, cs.err
		}
		if len(batch) > 0 && !time.Now().Before(deadline) {
			return batch, nil // a long backlog comes in several batches
		}
		visible := cs.e.events.Visible()
		evs, err := cs.e.events.Read(cs.pos, visible, readChunk)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			if max >= 0 && len(batch)+len(cs.pending) >= max {
				break // the rest is read again by the next batch
			}
			docs, err := cs.shape(ctx, ev)
			if err != nil && ctx.Err() != nil {
				// The request ran out of time: the event is shaped again
				// by the next batch, and the stream goes on.
				return batch, nil
			}
			if err != nil {
				cs.err = err
				break
			}
			cs.pos = ev.Seq
			cs.pending = append(cs.pending, docs...)
			if cs.invalidated {
				break
			}
		}
		if len(cs.pending) > 0 || cs.err != nil {
			continue
		}
		if len(evs) == readChunk {
			continue
		}
		if visible > cs.pos {
			cs.pos = visible
		}
		left := time.Until(deadline)
		if len(batch) > 0 || left <= 0 || ctx.Err() != nil {
			return batch, nil
		}
		cs.e.events.Wait(ctx, cs.pos, left)
	}
}

// watches reports whether the record concerns the stream's namespace.
func (cs *ChangeStream) watches(ev events.Event) bool {
	switch {
	case cs.req.AllForCluster:
		switch ev.DB {
		case "admin", "config", "local":
			return false
		}
		return !strings.HasPrefix(ev.Coll, "system.")
	case cs.req.Coll == "":
		return ev.DB == cs.req.DB && !strings.HasPrefix(ev.Coll, "system.")
	default:
		return ev.DB == cs.req.DB && ev.Coll == cs.req.Coll
	}
}

// invalidates reports whether the record ends the stream: a drop or
// rename of the watched collection, a drop of the watched database.
func (cs *ChangeStream) invalidates(ev events.Event) bool {
	if cs.req.AllForCluster || !cs.watches(ev) {
		return false
	}
	if cs.req.Coll != "" {
		return ev.Op == events.OpDrop || ev.Op == events.OpRename
	}
	return ev.Op == events.OpDropDatabase
}

// shape returns the events a record gives the stream, through its
// pipeline: none, one (or its fragments), or the event and the invalidate
// that follows it. The stream's position is still the one before the record.
func (cs *ChangeStream) shape(ctx context.Context, ev events.Event) ([]pendingEvent, error) {
	if !cs.watches(ev) {
		return nil, nil
	}
	if events.Expanded(ev.Op) && !cs.req.ShowExpandedEvents {
		return nil, nil
	}
	if ev.Op == events.OpDropDatabase && cs.req.Coll != "" {
		return nil, nil // the drops of its collections came first
	}
	t := changeToken{seq: ev.Seq}
	var raw bson.Raw
	if cs.prefilter == nil || cs.prefilter.Match(recordSkeleton(ev)) {
		var err error
		if raw, err = cs.shapeContent(ctx, ev, t); err != nil {
			return nil, err
		}
	}
	out, err := cs.fit(raw, t)
	if err != nil {
		return nil, err
	}
	if cs.invalidates(ev) {
		inv, err := cs.invalidateEvent(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, pendingEvent{doc: inv, after: t})
	}
	return out, nil
}

// shapeContent returns the record's event through the pipeline, reading
// its content; nil when the pipeline drops it.
func (cs *ChangeStream) shapeContent(ctx context.Context, ev events.Event, t changeToken) (bson.Raw, error) {
	// An event whose content was trimmed fails the stream only if the
	// stream would hand it out: a stream that selects deletions, say, goes
	// past the inserts it drops.
	lost := false
	if err := cs.e.events.Resolve(&ev); errors.Is(err, events.ErrContentLost) {
		lost = true
	} else if err != nil {
		return nil, err
	}
	doc, err := cs.event(ctx, ev)
	if err != nil && !lost {
		return nil, err
	}
	var raw bson.Raw
	if err == nil {
		raw, err = cs.filter(ctx, doc, t)
	}
	if lost && (err != nil || raw != nil) {
		return nil, historyLost()
	}
	return raw, err
}

// fit returns the event raw of token t (nil: none) as the stream hands it
// out: whole, or split in fragments when it is too large and the stream
// splits large events; a stream resuming from a fragment of it goes on
// with the next fragment.
func (cs *ChangeStream) fit(raw bson.Raw, t changeToken) ([]pendingEvent, error) {
	before := changeToken{seq: cs.pos}
	resuming := cs.resume != nil && cs.resume.seq == t.seq
	if resuming && len(raw) <= maxChangeEventSize {
		return nil, mongoerr.New(mongoerr.ChangeStreamFatalError,
			"Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split")
	}
	if raw == nil {
		return nil, nil
	}
	if !cs.split || len(raw) <= maxChangeEventSize {
		if len(raw) > maxBSONInternalSize {
			return nil, tooLargeEvent(len(raw), t)
		}
		return []pendingEvent{{doc: raw, after: before}}, nil
	}
	frags, err := splitEvent(raw, t)
	if err != nil {
		return nil, err
	}
	skip := 0
	if resuming {
		if int(cs.resume.fragment) >= len(frags) {
			return nil, mongoerr.New(mongoerr.ChangeStreamFatalError,
				"Attempted to resume from a split event, but the resumed stream produced a different split. Ensure that the pipeline used to resume is the same as the original")
		}
		// The fragment resumed from was handed out before.
		skip = int(cs.resume.fragment) + 1
	}
	var out []pendingEvent
	for n := skip; n < len(frags); n++ {
		after := before
		if n > 0 {
			after = changeToken{seq: t.seq, fragmented: true, fragment: uint32(n - 1)}
		}
		out = append(out, pendingEvent{doc: frags[n], after: after})
	}
	return out, nil
}

// invalidateEvent is the invalidate that follows ev; it is handed out
// whatever the pipeline says, and ends the stream.
func (cs *ChangeStream) invalidateEvent(ev events.Event) (bson.Raw, error) {
	cs.invalidated = true
	t := changeToken{seq: ev.Seq, invalidate: true}
	return bson.Marshal(bson.D{
		{Key: "_id", Value: t.doc()},
		{Key: "operationType", Value: "invalidate"},
		{Key: "clusterTime", Value: clusterTime(ev.Seq)},
		{Key: "wallTime", Value: bson.DateTime(ev.Wall)},
	})
}

// filter runs the stream's pipeline on one event; nil when the pipeline
// drops it. A pipeline that changes _id fails the stream, as the event
// could not be resumed from.
func (cs *ChangeStream) filter(ctx context.Context, doc bson.D, t changeToken) (bson.Raw, error) {
	if cs.pipe != nil {
		// The pipeline reads nested documents decoded.
		raw, err := bson.Marshal(doc)
		if err != nil {
			return nil, err
		}
		if doc, err = DecodeDocument(raw); err != nil {
			return nil, err
		}
		out, err := cs.pipe.Collect(ctx, []bson.D{doc}, aggregate.Env{DB: cs.req.DB, Vars: aggregate.NewVars(cs.e.opts.Now())})
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, nil
		}
		doc = out[0]
		want, _ := bson.Marshal(bson.D{{Key: "_id", Value: t.doc()}})
		got, err := bson.Marshal(bson.D{{Key: "_id", Value: idOf(doc)}})
		if err != nil || !bytes.Equal(want, got) {
			return nil, mongoerr.New(mongoerr.ChangeStreamFatalError,
				"Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.")
		}
	}
	return bson.Marshal(doc)
}

// idOf returns doc's _id field, or nil.
func idOf(doc bson.D) any {
	for _, e := range doc {
		if e.Key == "_id" {
			return e.Value
		}
	}
	return nil
}

// clusterTime returns a sequence number as the Timestamp it stands for.
func clusterTime(seq uint64) bson.Timestamp {
	return bson.Timestamp{T: uint32(seq >> 32), I: uint32(seq)}
}

// event shapes a record as MongoDB's change event.
func (cs *ChangeStream) event(ctx context.Context, ev events.Event) (bson.D, error) {
	t := changeToken{seq: ev.Seq}
	d := bson.D{
		{Key: "_id", Value: t.doc()},
		{Key: "operationType", Value: ev.Op},
		{Key: "clusterTime", Value: clusterTime(ev.Seq)},
	}
	if cs.req.ShowExpandedEvents && ev.UUID != nil {
		d = append(d, bson.E{Key: "collectionUUID", Value: *ev.UUID})
	}
	d = append(d, bson.E{Key: "wallTime", Value: bson.DateTime(ev.Wall)})
	switch ev.Op {
	case events.OpInsert, events.OpReplace:
		if ev.Full == nil {
			d = append(d, bson.E{Key: "fullDocument", Value: nil}) // its content was trimmed
		} else {
			d = append(d, bson.E{Key: "fullDocument", Value: ev.Full})
		}
	}
	ns := bson.D{{Key: "db", Value: ev.DB}}
	if ev.Coll != "" {
		ns = append(ns, bson.E{Key: "coll", Value: ev.Coll})
	}
	d = append(d, bson.E{Key: "ns", Value: ns})
	switch ev.Op {
	case events.OpRename:
		d = append(d, bson.E{Key: "to", Value: bson.D{{Key: "db", Value: ev.ToDB}, {Key: "coll", Value: ev.ToColl}}})
		return cs.catalogFields(d, ev), nil
	case events.OpInsert, events.OpUpdate, events.OpReplace, events.OpDelete:
	default:
		return cs.catalogFields(d, ev), nil
	}
	// An insert whose content was trimmed has no document to take its key
	// from; the stream fails with lost history if it would show it.
	if len(ev.Key) > 0 || ev.Op != events.OpInsert {
		key, err := DecodeDocument(ev.Key)
		if err != nil {
			return nil, fmt.Errorf("docdb: change record with a malformed document key: %w", err)
		}
		d = append(d, bson.E{Key: "documentKey", Value: key})
	}
	if ev.Op == events.OpUpdate {
		u := ev.Update
		if u == nil {
			u = &events.UpdateDescription{}
		}
		ud := bson.D{
			{Key: "updatedFields", Value: nonNilD(u.UpdatedFields)},
			{Key: "removedFields", Value: nonNilStrings(u.RemovedFields)},
			{Key: "truncatedArrays", Value: truncated(u.TruncatedArrays)},
		}
		if cs.req.ShowExpandedEvents {
			ud = append(ud, bson.E{Key: "disambiguatedPaths", Value: nonNilD(u.DisambiguatedPaths)})
		}
		d = append(d, bson.E{Key: "updateDescription", Value: ud})
		switch cs.req.FullDocument {
		case FullDocumentUpdateLookup:
			cur, err := cs.lookup(ctx, ev)
			if err != nil {
				return nil, err
			}
			d = append(d, bson.E{Key: "fullDocument", Value: cur})
		case FullDocumentWhenAvailable, FullDocumentRequired:
			if ev.Full == nil {
				if cs.req.FullDocument == FullDocumentRequired {
					return nil, mongoerr.Newf(mongoerr.NoMatchingDocument,
						"Change stream was configured to require a post-image for all update events, but the post-image was not found for event: %s", fmtDoc(d))
				}
				d = append(d, bson.E{Key: "fullDocument", Value: nil})
			} else {
				d = append(d, bson.E{Key: "fullDocument", Value: ev.Full})
			}
		}
	}
	if cs.req.FullDocumentBeforeChange != FullDocumentOff && ev.Op != events.OpInsert {
		if ev.Pre == nil {
			if cs.req.FullDocumentBeforeChange == FullDocumentRequired {
				return nil, mongoerr.Newf(mongoerr.NoMatchingDocument,
					"Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for event: %s", fmtDoc(d))
			}
			d = append(d, bson.E{Key: "fullDocumentBeforeChange", Value: nil})
		} else {
			d = append(d, bson.E{Key: "fullDocumentBeforeChange", Value: ev.Pre})
		}
	}
	if ev.Op == events.OpDelete && ev.Expired != nil {
		d = append(d, bson.E{Key: "expiredBy", Value: expiredBy(ev.Expired)})
	}
	return d, nil
}

// expiredBy is an expiry deletion's expiredBy field: {source, index or
// policy, dueAt}.
func expiredBy(x *events.Expiry) bson.D {
	nameKey := "index"
	if x.Source == "policy" {
		nameKey = "policy"
	}
	return bson.D{
		{Key: "source", Value: x.Source},
		{Key: nameKey, Value: x.Name},
		{Key: "dueAt", Value: x.DueAt},
	}
}

// lookup returns the current version of the record's document, or nil
// when it is gone (fullDocument: updateLookup).
func (cs *ChangeStream) lookup(ctx context.Context, ev events.Event) (any, error) {
	key, err := DecodeDocument(ev.Key)
	if err != nil || len(key) != 1 {
		return nil, fmt.Errorf("docdb: change record with a malformed document key: %w", err)
	}
	cur, err := cs.e.Find(ctx, ev.DB, ev.Coll, FindRequest{Filter: key, Limit: 1})
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	doc, err := cur.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

func nonNilD(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

func nonNilStrings(s []string) bson.A {
	out := bson.A{}
	for _, x := range s {
		out = append(out, x)
	}
	return out
}

func truncated(ts []events.TruncatedArray) bson.A {
	out := bson.A{}
	for _, t := range ts {
		out = append(out, bson.D{{Key: "field", Value: t.Field}, {Key: "newSize", Value: t.NewSize}})
	}
	return out
}

// TrimChangeLog trims the change log now, as its background pass does each
// second, by the Engine's clock; a no-op without the log. A test that moves
// a manual clock calls it so that retention applies at the new time.
func (e *Engine) TrimChangeLog() error {
	if e.events == nil {
		return nil
	}
	return e.events.TrimAll()
}
