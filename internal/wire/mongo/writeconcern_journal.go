package mongo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// ReplicaJournal is what a replica set member offers for writeConcern j:
// waiting until the writes it applied are on disk on a majority.
type ReplicaJournal interface {
	// WaitDurable waits until every write this member applied so far is
	// fsynced in a majority of the voting members' logs, or ctx ends.
	WaitDurable(ctx context.Context) error
}

// waitJournal honours writeConcern j: true on a replica set member: the
// reply waits until the write is on disk on a majority of members (for at
// most wtimeout when one is given); past it the write stays applied and
// the reply carries the same writeConcernError as a w: N that timed out.
func (c *conn) waitJournal(ctx context.Context, v bson.RawValue, out bson.D) bson.D {
	doc, ok := v.DocumentOK()
	if !ok {
		return out
	}
	if j := doc.Lookup("j"); j.Type == 0 || !truthy(j) {
		return out
	}
	rj, ok := c.s.opts.ReplicaSet.(ReplicaJournal)
	if !ok {
		return out
	}
	if t := doc.Lookup("wtimeout"); isNumber(t.Type) {
		if ms, ok := t.AsInt64OK(); ok && ms > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
			defer cancel()
		}
	}
	if rj.WaitDurable(ctx) == nil {
		return out
	}
	given := append(mustD(doc), bson.E{Key: "provenance", Value: "clientSupplied"})
	return withWriteConcernError(out, mongoerr.WriteConcernTimeout, "WriteConcernFailed", "waiting for replication timed out",
		bson.D{{Key: "wtimeout", Value: true}, {Key: "writeConcern", Value: given}})
}
