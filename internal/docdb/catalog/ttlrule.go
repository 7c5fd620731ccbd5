package catalog

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

// DueTime returns when doc expires under TTL index ix; ok is false when it
// never does.
func (ix *IndexMeta) DueTime(doc bson.D) (due int64, ok bool) {
	if !ix.TTL || !ix.TTLValid || len(ix.Fields) != 1 {
		return 0, false
	}
	if ix.Partial != nil && !ix.Partial.Matches(doc) {
		return 0, false
	}
	var kv KeyValues
	kv.Collect(doc, SplitPath(ix.Fields[0].Path), true)
	for _, v := range kv.Values {
		if d, isDate := v.(bson.DateTime); isDate {
			if !ok || int64(d) < due {
				due, ok = int64(d), true
			}
		}
	}
	if !ok {
		return 0, false
	}
	return AddSeconds(due, ix.ExpireAfter), true
}

// AddSeconds adds s seconds to ms milliseconds, saturating.
func AddSeconds(ms, s int64) int64 {
	const maxMs = int64(^uint64(0) >> 1)
	d := s * 1000
	if ms > maxMs-d {
		return maxMs
	}
	return ms + d
}

// HasTTL reports whether the collection has a TTL index that can expire
// documents.
func (m *CollMeta) HasTTL() bool {
	for _, ix := range m.Indexes {
		if ix.TTL && ix.TTLValid && len(ix.Fields) == 1 {
			return true
		}
	}
	return m.ClusteredTTLIndex() != nil
}

// Expired reports whether doc is expired at nowMs under any TTL index of m
// (or, for a clustered collection, its collection-level TTL).
func (m *CollMeta) Expired(doc bson.D, nowMs int64) bool {
	for _, ix := range m.Indexes {
		if due, ok := ix.DueTime(doc); ok && due <= nowMs {
			return true
		}
	}
	if ix := m.ClusteredTTLIndex(); ix != nil {
		if due, ok := ix.DueTime(doc); ok && due <= nowMs {
			return true
		}
	}
	return false
}
