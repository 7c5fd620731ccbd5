package docdb

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/docdb/timeseries"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// Time-series expiry: the collection-level TTL of a time-series collection
// is its bucket collection's clustered TTL source, which deletes whole
// buckets: a bucket is due at start + expireAfterSeconds +
// bucketMaxSpanSeconds, so the buckets due at now are those whose start is
// at or before now - expireAfterSeconds - bucketMaxSpanSeconds, the key
// span of bucket _ids up to that second. ttl.deletedDocuments counts the
// buckets, as MongoDB counts the documents of its bucket collection.
//
// A collection holding a bucket of the extended range (a date before 1970
// or after 2038-01-19) expires nothing, as MongoDB documents: those
// buckets' _ids do not sort by time.

// bucketStart returns the start (Unix ms) of the bucket with storage key
// key in collection m.
func bucketStart(m *catalog.CollMeta, key []byte) (int64, error) {
	v, _, err := keycodec.DecodeValue(key[len(catalog.DocPrefix(m.ID)):], false)
	if err != nil {
		return 0, err
	}
	id, ok := v.(bson.ObjectID)
	if !ok {
		return 0, fmt.Errorf("docdb: bucket _id of type %T", v)
	}
	return int64(binary.BigEndian.Uint32(id[:4])) * 1000, nil
}

// bucketRule is the span rule of a time-series bucket collection.
func bucketRule(m *catalog.CollMeta, ix *catalog.IndexMeta, o timeseries.Options, now time.Time) (spanRule, bool, error) {
	cutoff := subSeconds(now.UnixMilli(), ix.ExpireAfter+o.MaxSpan)
	lo, err := bucketKey(m.ID, timeseries.IDLowerBound(0))
	if err != nil {
		return spanRule{}, false, err
	}
	if cutoff < 0 {
		return spanRule{}, false, nil
	}
	limit := min(cutoff-cutoff%1000+1000, int64(1)<<31*1000)
	hi, err := bucketKey(m.ID, timeseries.IDLowerBound(limit))
	if limit == int64(1)<<31*1000 {
		hi, err = bucketKey(m.ID, timeseries.ExtendedRangeStart())
	}
	if err != nil {
		return spanRule{}, false, err
	}
	due := func(key []byte) (int64, error) {
		start, err := bucketStart(m, key)
		return catalog.AddSeconds(start, ix.ExpireAfter+o.MaxSpan), err
	}
	return spanRule{lo: lo, hi: hi, due: due}, true, nil
}

// bucketsExtended reports whether the bucket collection m holds a bucket
// of the extended range.
func (e *Engine) bucketsExtended(m *catalog.CollMeta) (bool, error) {
	k, err := bucketKey(m.ID, timeseries.ExtendedRangeStart())
	if err != nil {
		return false, err
	}
	it, err := e.store.NewIter(k, storage.PrefixEnd(catalog.DocPrefix(m.ID)))
	if err != nil {
		return false, err
	}
	defer it.Close()
	return it.First(), it.Error()
}

// bucketsNextDue is NextDue for a bucket collection: its earliest bucket's
// start + expireAfterSeconds + bucketMaxSpanSeconds.
func (s *ttlSource) bucketsNextDue(m *catalog.CollMeta, ix *catalog.IndexMeta, o timeseries.Options) (time.Time, bool, error) {
	if ext, err := s.e.bucketsExtended(m); err != nil || ext {
		return time.Time{}, false, err
	}
	p := catalog.DocPrefix(m.ID)
	it, err := s.e.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return time.Time{}, false, err
	}
	defer it.Close()
	if !it.First() {
		return time.Time{}, false, it.Error()
	}
	start, err := bucketStart(m, it.Key())
	if err != nil {
		return time.Time{}, false, err
	}
	return time.UnixMilli(catalog.AddSeconds(start, ix.ExpireAfter+o.MaxSpan)), true, nil
}

// dueBuckets returns the keys and due times of the buckets of m due at
// now, up to max (0: all); more reports that some were left.
func (e *Engine) dueBuckets(m *catalog.CollMeta, now time.Time, max int) (keys [][]byte, dues []int64, more bool, err error) {
	rule, ok, err := e.spanRuleOf(m, now)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	it, err := e.store.NewIter(rule.lo, rule.hi)
	if err != nil {
		return nil, nil, false, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if max > 0 && len(keys) >= max {
			return keys, dues, true, nil
		}
		due, err := rule.due(it.Key())
		if err != nil {
			return nil, nil, false, err
		}
		keys = append(keys, append([]byte(nil), it.Key()...))
		dues = append(dues, due)
	}
	return keys, dues, false, it.Error()
}

// bucketsCountDue is CountDue for a bucket collection.
func (s *ttlSource) bucketsCountDue(m *catalog.CollMeta, now time.Time) (int64, time.Time, time.Time, error) {
	_, dues, _, err := s.e.dueBuckets(m, now, 0)
	if err != nil || len(dues) == 0 {
		return 0, time.Time{}, time.Time{}, err
	}
	return int64(len(dues)), time.UnixMilli(dues[0]), time.UnixMilli(dues[len(dues)-1]), nil
}

// reapBuckets deletes up to max due buckets of c one by one, with their
// index entries and change events: the way for a bucket collection that
// does not expire by spans.
func (s *ttlSource) reapBuckets(c *catalog.Collection, now time.Time, max int, b expiry.Batch) (expiry.Reaped, error) {
	if s.e.spanReapable(c.Meta) {
		return s.reapSpan(c, c.Meta, now, b)
	}
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped {
		return expiry.Reaped{}, nil
	}
	keys, dues, more, err := s.e.dueBuckets(c.Meta, now, max)
	if err != nil || len(keys) == 0 {
		return expiry.Reaped{}, err
	}
	w := s.e.newWriter(c)
	defer w.close()
	ix := c.Meta.ClusteredTTLIndex()
	r := expiry.Reaped{More: more}
	for i, key := range keys {
		raw, err := s.e.store.Get(key)
		if err != nil {
			return expiry.Reaped{}, err
		}
		sd, err := stored.New(raw)
		if err != nil {
			return expiry.Reaped{}, err
		}
		if err := w.removeExpired(sd, change.Expiry{Source: change.SourceTTL, Name: ix.Name, DueAt: dues[i]}); err != nil {
			return expiry.Reaped{}, err
		}
		r.Items++
		r.Due = append(r.Due, dues[i])
	}
	for _, ic := range w.d.Idx {
		r.Keys -= int(ic.Keys)
	}
	return r, w.commit()
}

// subSeconds subtracts s (>= 0) seconds from ms milliseconds, saturating.
func subSeconds(ms, s int64) int64 {
	if ms/1000-math.MinInt64/1000 <= s {
		return math.MinInt64
	}
	return ms - s*1000
}
