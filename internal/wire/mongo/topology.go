package mongo

import (
	"bytes"
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Every hello reply carries the server's topologyVersion, {processId,
// counter}, as the SDAM specification's awaitable hello has it: processId
// is new at every start of the process, counter counts the changes of
// what hello reports since then. A standalone's counter stays 0; a replica
// set member's is its set's change count (ReplicaSet.Changes: roles,
// membership, the primary it knows, its freeze).
//
// A hello with the client's topologyVersion and maxAwaitTimeMS is
// awaitable: when the processId is this process's and the counter is the
// current one, the reply waits until the counter moves or maxAwaitTimeMS
// passes; a different processId or an older counter is answered at once.
// Sent as an OP_MSG with exhaustAllowed, it streams: each reply is sent
// with moreToCome and the next one follows, without a request, once the
// next wait ends (conn.go). The wait is on a real timer, as getMore's
// awaitData waits are; it ends early when the client disconnects, the
// command is killed, or the server shuts down.

// topologyVersion is hello's {processId, counter}.
type topologyVersion struct {
	processID bson.ObjectID
	counter   int64
}

// doc is the reply field's value.
func (tv topologyVersion) doc() bson.D {
	return bson.D{{Key: "processId", Value: tv.processID}, {Key: "counter", Value: tv.counter}}
}

// topology returns the current topologyVersion and a channel closed when
// it next changes (nil on a standalone, whose version never changes).
func (s *Server) topology() (topologyVersion, <-chan struct{}) {
	if rs := s.opts.ReplicaSet; rs != nil {
		n, changed := rs.Changes()
		return topologyVersion{processID: s.processID, counter: n}, changed
	}
	return topologyVersion{processID: s.processID}, nil
}

// notPrimaryCodes are MongoDB's NotPrimaryError category: the errors that
// tell a driver the member is not (or no longer) the primary.
var notPrimaryCodes = map[mongoerr.Code]bool{
	mongoerr.NotWritablePrimary:              true,
	mongoerr.NotPrimaryNoSecondaryOk:         true,
	mongoerr.NotPrimaryOrSecondary:           true,
	mongoerr.InterruptedDueToReplStateChange: true,
	mongoerr.PrimarySteppedDown:              true,
}

// withTopologyVersion adds the current topologyVersion to a replica set
// member's error reply of the NotPrimaryError category, as MongoDB does:
// a driver compares it with the version its monitor last saw and ignores
// an error no newer than that (the member's role it already knows),
// instead of marking the member unknown until its next streamed hello.
func (s *Server) withTopologyVersion(reply bson.D, code mongoerr.Code) bson.D {
	if s.opts.ReplicaSet == nil || !notPrimaryCodes[code] {
		return reply
	}
	tv, _ := s.topology()
	return append(reply, bson.E{Key: "topologyVersion", Value: tv.doc()})
}

// maxAwaitMillis is the longest wait a time.Duration holds.
const maxAwaitMillis = int64(1<<63-1) / int64(time.Millisecond)

// awaitableHello is what an awaitable hello asks: the topologyVersion the
// client knows and how long to wait for it to change.
type awaitableHello struct {
	known   topologyVersion
	maxWait time.Duration
}

// parseAwaitableHello reads hello's topologyVersion and maxAwaitTimeMS
// with MongoDB's errors (its IDL's, then its own); nil when neither is
// given.
func parseAwaitableHello(cmd bson.Raw) (*awaitableHello, error) {
	var tv *topologyVersion
	var maxAwait *int64
	first := true
	err := eachElement(cmd, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		switch string(elementKey(el)) {
		case "topologyVersion":
			v, err := parseTopologyVersion(el.Value())
			if err != nil {
				return err
			}
			tv = &v
		case "maxAwaitTimeMS":
			n, err := int64Arg("hello", el)
			if err != nil {
				return err
			}
			if err := nonNegative("maxAwaitTimeMS", n); err != nil {
				return err
			}
			maxAwait = &n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case tv != nil && maxAwait != nil:
		if tv.counter < 0 {
			return nil, errorf(mongoerr.Location31372, "topologyVersion must have a non-negative counter")
		}
		return &awaitableHello{known: *tv, maxWait: time.Duration(min(*maxAwait, maxAwaitMillis)) * time.Millisecond}, nil
	case tv != nil:
		return nil, errorf(mongoerr.Location31368, "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'")
	case maxAwait != nil:
		return nil, errorf(mongoerr.Location31368, "A request with 'maxAwaitTimeMS' must include a 'topologyVersion'")
	}
	return nil, nil
}

// parseTopologyVersion parses the client's {processId: ObjectId, counter:
// long}, a strict IDL struct.
func parseTopologyVersion(v bson.RawValue) (topologyVersion, error) {
	doc, ok := v.DocumentOK()
	if !ok {
		return topologyVersion{}, typeMismatch("hello", "topologyVersion", v.Type, "object")
	}
	var tv topologyVersion
	var havePID, haveCounter bool
	err := eachElement(doc, func(el bson.RawElement) error {
		f := el.Value()
		switch key := string(elementKey(el)); key {
		case "processId":
			id, ok := f.ObjectIDOK()
			if !ok {
				return typeMismatch("hello.topologyVersion", key, f.Type, "objectId")
			}
			tv.processID, havePID = id, true
		case "counter":
			n, ok := f.Int64OK()
			if !ok {
				return typeMismatch("hello.topologyVersion", key, f.Type, "long")
			}
			tv.counter, haveCounter = n, true
		default:
			return unknownField("hello.topologyVersion", key)
		}
		return nil
	})
	switch {
	case err != nil:
		return topologyVersion{}, err
	case !havePID:
		return topologyVersion{}, missingField("hello.topologyVersion", "processId")
	case !haveCounter:
		return topologyVersion{}, missingField("hello.topologyVersion", "counter")
	}
	return tv, nil
}

// awaitTopology waits, for an awaitable hello, until the topologyVersion
// differs from the one the client knows or the wait's time is up, and
// returns the version to answer with and how long it waited. A client
// whose version is newer than the server's, with the same processId, gets
// MongoDB's error (51764 on a standalone, 31382 on a replica set member).
func (c *conn) awaitTopology(ctx context.Context, a *awaitableHello) (topologyVersion, time.Duration, error) {
	tv, changed := c.s.topology()
	if a.known.processID != tv.processID || a.known.counter < tv.counter {
		return tv, 0, nil
	}
	if a.known.counter > tv.counter {
		code := mongoerr.Location51764
		if c.s.opts.ReplicaSet != nil {
			code = mongoerr.Location31382
		}
		return tv, 0, errorf(code, "Received a topology version with counter: %d which is greater than the server topology version counter: %d", a.known.counter, tv.counter)
	}
	start := time.Now()
	t := time.NewTimer(a.maxWait)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-ctx.Done():
		if c.ctx.Err() != nil {
			// The client went: there is no one to answer, and nothing
			// failed.
			return tv, time.Since(start), nil
		}
		return tv, time.Since(start), ctx.Err()
	case <-c.s.closed:
		return tv, time.Since(start), errorf(mongoerr.InterruptedAtShutdown, "interrupted at shutdown")
	}
	tv, _ = c.s.topology()
	return tv, time.Since(start), nil
}

// nextExhaustHello returns the command of the next reply of a streaming
// hello: cmd itself when the client's topologyVersion is still current,
// else cmd with the current one in its place, as MongoDB's next
// invocation.
func nextExhaustHello(cmd bson.Raw, known, current topologyVersion) bson.Raw {
	if known == current {
		return cmd
	}
	idx, out := bsoncore.AppendDocumentStart(make([]byte, 0, len(cmd)+16))
	elems, _ := cmd.Elements()
	for _, el := range elems {
		if bytes.Equal(elementKey(el), []byte("topologyVersion")) {
			sub, end := bsoncore.AppendDocumentElementStart(out, "topologyVersion")
			end = bsoncore.AppendObjectIDElement(end, "processId", [12]byte(current.processID))
			end = bsoncore.AppendInt64Element(end, "counter", current.counter)
			out, _ = bsoncore.AppendDocumentEnd(end, sub)
			continue
		}
		out = append(out, el...)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}
