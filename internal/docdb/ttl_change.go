package docdb

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/policy"
)

// TTLIndexChange is what ChangeTTLIndex did or, for a dry run, would do.
type TTLIndexChange struct {
	// Index is the TTL index as it was.
	Index TTLIndex
	// Old and New are its expireAfterSeconds before and after.
	Old, New int64
	// Preview is the dry run's; zero when the change was applied.
	Preview policy.DryRun
}

// ChangeTTLIndex sets the expireAfterSeconds of the TTL index of an expiry
// source (ttl_index:db.coll.index) to secs with collMod: the index's own,
// or the collection's for a clustered collection. With dryRun it is
// collMod's dry run, which validates and previews the change and applies
// nothing. An unknown source fails with IndexNotFound (27); the rest
// fails as collMod does.
func (e *Engine) ChangeTTLIndex(ctx context.Context, source string, secs int64, dryRun bool) (TTLIndexChange, error) {
	var ix TTLIndex
	found := false
	for _, t := range e.TTLIndexes() {
		if t.Source == source {
			ix, found = t, true
			break
		}
	}
	if !found {
		return TTLIndexChange{}, mongoerr.Newf(mongoerr.IndexNotFound, "no TTL index with expiry source %q", source)
	}
	req := CollModRequest{DryRun: dryRun}
	if ix.Clustered {
		req.ExpireAfterSeconds = &CollectionExpiry{Seconds: secs}
	} else {
		req.Index = &CollModIndex{Name: ix.Index, ExpireAfterSeconds: &secs}
	}
	at := e.opts.Now()
	reply, err := e.collMod(ctx, ix.DB, ix.Collection, req)
	if err != nil {
		return TTLIndexChange{}, err
	}
	out := TTLIndexChange{Index: ix, Old: ix.ExpireAfterSeconds, New: secs}
	if old, ok := replyInt64(reply, "expireAfterSeconds_old"); ok {
		out.Old = old
	}
	if dryRun {
		out.Preview = dryRunOfReply(reply, at)
	}
	return out, nil
}

// dryRunOfReply reads back the fields policy.DryRun.Fields puts first in a
// dry run's reply.
func dryRunOfReply(reply bson.D, at time.Time) policy.DryRun {
	d := policy.DryRun{At: at}
	d.WouldExpire, _ = replyInt64(reply, "wouldExpire")
	for _, f := range reply {
		v, ok := f.Value.(bson.DateTime)
		if !ok {
			continue
		}
		switch f.Key {
		case "oldestDue":
			d.OldestDue = v.Time()
		case "newestDue":
			d.NewestDue = v.Time()
		}
	}
	if ms, ok := replyInt64(reply, "estimatedDeleteMillis"); ok {
		d.EstimatedDelete, d.Estimated = time.Duration(ms)*time.Millisecond, true
	}
	return d
}

// replyInt64 returns the integer field key of a reply.
func replyInt64(reply bson.D, key string) (int64, bool) {
	for _, f := range reply {
		if f.Key != key {
			continue
		}
		switch v := f.Value.(type) {
		case int64:
			return v, true
		case int32:
			return int64(v), true
		}
	}
	return 0, false
}
