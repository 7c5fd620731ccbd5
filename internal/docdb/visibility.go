package docdb

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Strict visibility: a document is expired, and so
// invisible to every read path, as soon as one TTL index of its collection
// (or the TTL policy of its collection group, policy.go) says so, whether or not the sweeper has deleted it yet. The rule is
// MongoDB's TTL rule evaluated at read time:
//
//   - only BSON Date values of the indexed field count; for an array the
//     earliest Date element decides; a missing field or one without a Date
//     never expires;
//   - a partial TTL index only expires documents its filter matches;
//   - the document is expired when date + expireAfterSeconds <= now;
//   - hidden TTL indexes expire documents too; indexes whose stored
//     expireAfterSeconds is invalid never do.
//
// The check reads the document itself, not the index, so it is exact at the
// instant it runs and costs nothing for collections without TTL indexes.

// dueTime returns when doc expires under TTL index ix; ok is false when it
// never does.
func (ix *indexMeta) dueTime(doc bson.D) (due int64, ok bool) {
	if !ix.ttl || !ix.ttlValid || len(ix.fields) != 1 {
		return 0, false
	}
	if ix.partial != nil && !ix.partial.matches(doc) {
		return 0, false
	}
	var kv keyValues
	kv.collect(doc, splitPath(ix.fields[0].path), true)
	for _, v := range kv.values {
		if d, isDate := v.(bson.DateTime); isDate {
			if !ok || int64(d) < due {
				due, ok = int64(d), true
			}
		}
	}
	if !ok {
		return 0, false
	}
	return addSeconds(due, ix.expireAfter), true
}

// addSeconds adds s seconds to ms milliseconds, saturating.
func addSeconds(ms, s int64) int64 {
	const maxMs = int64(^uint64(0) >> 1)
	d := s * 1000
	if ms > maxMs-d {
		return maxMs
	}
	return ms + d
}

// hasTTL reports whether the collection has a TTL index that can expire
// documents.
func (m *collMeta) hasTTL() bool {
	for _, ix := range m.indexes {
		if ix.ttl && ix.ttlValid && len(ix.fields) == 1 {
			return true
		}
	}
	return m.clusteredTTLIndex() != nil
}

// expired reports whether doc is expired at nowMs under any TTL index of m
// (or, for a clustered collection, its collection-level TTL).
func (m *collMeta) expired(doc bson.D, nowMs int64) bool {
	for _, ix := range m.indexes {
		if due, ok := ix.dueTime(doc); ok && due <= nowMs {
			return true
		}
	}
	if ix := m.clusteredTTLIndex(); ix != nil {
		if due, ok := ix.dueTime(doc); ok && due <= nowMs {
			return true
		}
	}
	return false
}

// visibility is the expiry check of one operation: the collection's
// metadata and the instant the operation reads at.
type visibility struct {
	meta   *collMeta
	nowMs  int64
	strict bool
	// policy is the TTL policy of the collection's group; nil when none.
	policy *policyRule
}

// newVisibility returns the check for an operation on meta starting now.
// Cursors re-evaluate now on every Next (see cursor.go), so a getMore never
// returns what expired since the find.
func (e *Engine) newVisibility(meta *collMeta) visibility {
	policy := e.policyRuleFor(meta.name)
	return visibility{
		meta:   meta,
		nowMs:  e.opts.Now().UnixMilli(),
		strict: e.opts.Visibility == VisibilityStrict && (meta.hasTTL() || policy != nil),
		policy: policy,
	}
}

// hides reports whether doc must be hidden.
func (v visibility) hides(doc bson.D) bool {
	return v.strict && (v.meta.expired(doc, v.nowMs) || v.policy.expired(doc, v.nowMs))
}

// refresh moves the check's instant to now.
func (v *visibility) refresh(now time.Time) { v.nowMs = now.UnixMilli() }
