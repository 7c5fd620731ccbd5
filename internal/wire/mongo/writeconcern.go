package mongo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// ReplicaWaiter is what a replica set member offers for write and read
// concerns beyond its own store: how many voting members the set has,
// waiting until other members applied this member's writes, and
// confirming leadership before a linearizable read.
type ReplicaWaiter interface {
	// Voters is the number of voting members of the set.
	Voters() int
	// WaitApplied waits until at least want other members have applied
	// every write this member applied so far, or ctx ends, and returns
	// how many have.
	WaitApplied(ctx context.Context, want int) int
	// VerifyLeader confirms with a majority that this member is still
	// primary.
	VerifyLeader() error
}

// waiter returns the server's replica set as a ReplicaWaiter, nil on a
// standalone.
func (s *Server) waiter() ReplicaWaiter {
	w, _ := s.opts.ReplicaSet.(ReplicaWaiter)
	return w
}

// writeConcern is a command's parsed writeConcern.
type writeConcern struct {
	// members is w's number; majority is w "majority"; tag another string.
	members  int64
	majority bool
	tag      string
	wtimeout time.Duration
	raw      bson.Raw
}

// parseWriteConcern reads the fields of a writeConcern a replica set
// member acts on; ok is false when it asks nothing beyond the primary
// (w absent, 0 or 1) or is not a document.
func parseWriteConcern(v bson.RawValue) (wc writeConcern, ok bool) {
	doc, isDoc := v.DocumentOK()
	if !isDoc {
		return wc, false
	}
	wc.raw = doc
	if t := doc.Lookup("wtimeout"); isNumber(t.Type) {
		if ms, ok := t.AsInt64OK(); ok && ms > 0 {
			wc.wtimeout = time.Duration(ms) * time.Millisecond
		}
	}
	w := doc.Lookup("w")
	switch {
	case isNumber(w.Type):
		n, _ := w.AsInt64OK()
		wc.members = n
		return wc, n > 1
	case w.Type == bson.TypeString:
		if w.StringValue() == "majority" {
			wc.majority = true
		} else {
			wc.tag = w.StringValue()
		}
		return wc, true
	}
	return wc, false
}

// waitWriteConcern makes a successful write command on a replica set
// member honour its writeConcern, as MongoDB does: the write stays
// applied and the reply reports a concern that was not met in
// writeConcernError.
//
// Every write is acknowledged once raft committed it, that is once it is
// in a majority of members' logs, so w "majority" is met when the command
// returns; j: true then waits until those logs are on disk
// (waitJournal). w: N waits
// until N members (this one included) applied it, for at most wtimeout
// when one is given; N above the set's voting members is answered with
// UnsatisfiableWriteConcern, a tag the set does not define with
// UnknownReplWriteConcern.
func (c *conn) waitWriteConcern(ctx context.Context, req *request, v bson.RawValue, out bson.D) bson.D {
	rs := c.s.waiter()
	if rs == nil || !writeCommands[req.name] && req.name != "commitTransaction" && req.name != "abortTransaction" {
		return out
	}
	wc, ok := parseWriteConcern(v)
	if !ok || wc.majority {
		return c.waitJournal(ctx, v, out)
	}
	if wc.tag != "" {
		return withWriteConcernError(out, mongoerr.UnknownReplWriteConcern, "UnknownReplWriteConcern",
			"No write concern mode named '"+wc.tag+"' found in replica set configuration", nil)
	}
	if wc.members > int64(rs.Voters()) {
		return withWriteConcernError(out, mongoerr.UnsatisfiableWriteConcern, "UnsatisfiableWriteConcern",
			"Not enough data-bearing nodes", nil)
	}
	wctx := ctx
	if wc.wtimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, wc.wtimeout)
		defer cancel()
	}
	want := int(wc.members) - 1
	if rs.WaitApplied(wctx, want) >= want {
		return c.waitJournal(wctx, v, out)
	}
	given := append(mustD(wc.raw), bson.E{Key: "provenance", Value: "clientSupplied"})
	return withWriteConcernError(out, mongoerr.WriteConcernTimeout, "WriteConcernFailed", "waiting for replication timed out",
		bson.D{{Key: "wtimeout", Value: true}, {Key: "writeConcern", Value: given}})
}

// mustD decodes a document already known to be valid BSON.
func mustD(raw bson.Raw) bson.D {
	var d bson.D
	_ = bson.Unmarshal(raw, &d)
	return d
}

// withWriteConcernError adds a writeConcernError to a reply.
func withWriteConcernError(out bson.D, code mongoerr.Code, name, msg string, info bson.D) bson.D {
	wce := bson.D{{Key: "code", Value: int32(code)}, {Key: "codeName", Value: name}, {Key: "errmsg", Value: msg}}
	if info != nil {
		wce = append(wce, bson.E{Key: "errInfo", Value: info})
	}
	return append(out, bson.E{Key: "writeConcernError", Value: wce})
}

// checkLinearizable serves readConcern level "linearizable" on a replica
// set member: only the primary may answer, after confirming with a
// majority that it still is primary; a secondary answers
// NotWritablePrimary as MongoDB does.
func (c *conn) checkLinearizable(v bson.RawValue) error {
	rs := c.s.waiter()
	if rs == nil {
		return nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	if level, ok := doc.Lookup("level").StringValueOK(); !ok || level != "linearizable" {
		return nil
	}
	if err := rs.VerifyLeader(); err != nil {
		return errorf(mongoerr.NotWritablePrimary, "cannot satisfy linearizable read concern on non-primary node")
	}
	return nil
}
