package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The TTL rule of a collection's metadata, as every read path evaluates it
// (strict visibility) and the write path wakes the expiry engine by it:
//
//   - only BSON Date values of the indexed field count; for an array the
//     earliest Date element decides; a missing field or one without a Date
//     never expires;
//   - a partial TTL index only expires documents its filter matches;
//   - the document is expired when date + expireAfterSeconds <= now;
//   - hidden TTL indexes expire documents too; indexes whose stored
//     expireAfterSeconds is invalid never do.

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
