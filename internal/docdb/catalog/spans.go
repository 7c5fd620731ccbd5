package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/mayfly/mayfly/internal/storage"
)

// Span aggregates. A clustered collection (not a time-series one) keeps,
// beside its counters, one aggregate per span of its Date _ids: how many
// documents have a Date _id in [start, start+SpanMillis) and their bytes
// as the counters count them. Spans are aligned to multiples of SpanMillis
// from the Unix epoch. The aggregates change in the same storage batch as
// the documents they count, under the collection's write lock, so the
// expiry engine can count a due range of whole spans by reading one
// aggregate per span instead of every document.
//
//	marker:    PrefixCatalog KeySpans [collection id: 8 bytes BE]
//	aggregate: PrefixCatalog KeySpans [collection id] [start: 8 bytes BE, sign bit flipped]
//	           -> docs, doc bytes, _id index bytes: 8 bytes BE each
//
// The marker says the aggregates are complete: it is written with the
// collection's creation, so a collection created before the aggregates
// existed has none and is counted document by document.
const (
	KeySpans byte = 'a'
	// SpanMillis is the width of a span of Date _ids.
	SpanMillis int64 = 100
)

// SpanCount is one span's aggregate, or a change to it.
type SpanCount struct {
	Docs, Bytes, IDBytes int64
}

// Add returns c plus d.
func (c SpanCount) Add(d SpanCount) SpanCount {
	return SpanCount{Docs: c.Docs + d.Docs, Bytes: c.Bytes + d.Bytes, IDBytes: c.IDBytes + d.IDBytes}
}

// Neg returns -c.
func (c SpanCount) Neg() SpanCount { return SpanCount{-c.Docs, -c.Bytes, -c.IDBytes} }

// SpanStart returns the start of the span holding the date ms.
func SpanStart(ms int64) int64 {
	s := ms / SpanMillis * SpanMillis
	if ms < 0 && s != ms {
		s -= SpanMillis
	}
	return s
}

// SpanLast returns the last date of the span starting at start.
func SpanLast(start int64) int64 {
	if start > math.MaxInt64-SpanMillis {
		return math.MaxInt64
	}
	return start + SpanMillis - 1
}

// SpansMarkerKey returns the key that says collection id keeps span
// aggregates; it is also the prefix of its aggregates.
func SpansMarkerKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, KeySpans}, id)
}

// SpanKey returns the key of the aggregate of the span starting at start.
func SpanKey(id uint64, start int64) []byte {
	return binary.BigEndian.AppendUint64(SpansMarkerKey(id), uint64(start)^(1<<63))
}

// SpanKeysBelow returns the key range of collection id's aggregates of
// spans starting before start.
func SpanKeysBelow(id uint64, start int64) (lo, hi []byte) {
	return SpanKey(id, math.MinInt64), SpanKey(id, start)
}

// DecodeSpan decodes an aggregate's key and value.
func DecodeSpan(key, value []byte) (start int64, c SpanCount, err error) {
	if len(key) != 18 || len(value) != 24 {
		return 0, c, fmt.Errorf("docdb: corrupt span aggregate %x", key)
	}
	start = int64(binary.BigEndian.Uint64(key[10:]) ^ (1 << 63))
	c.Docs = int64(binary.BigEndian.Uint64(value))
	c.Bytes = int64(binary.BigEndian.Uint64(value[8:]))
	c.IDBytes = int64(binary.BigEndian.Uint64(value[16:]))
	return start, c, nil
}

// KeepsSpans reports whether collection id's aggregates are complete (its
// marker is stored).
func KeepsSpans(st storage.Reader, id uint64) (bool, error) {
	_, err := st.Get(SpansMarkerKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// MarkSpans writes the marker of a new collection's aggregates into b.
func MarkSpans(b *storage.Batch, id uint64) error { return b.Set(SpansMarkerKey(id), nil) }

// GetSpan reads one aggregate (zero when none is stored).
func GetSpan(st storage.Reader, id uint64, start int64) (SpanCount, error) {
	k := SpanKey(id, start)
	v, err := st.Get(k)
	if errors.Is(err, storage.ErrNotFound) {
		return SpanCount{}, nil
	}
	if err != nil {
		return SpanCount{}, err
	}
	_, c, err := DecodeSpan(k, v)
	return c, err
}

// PutSpan writes the aggregate c of one span into b, deleting it when the
// span holds nothing.
func PutSpan(b *storage.Batch, id uint64, start int64, c SpanCount) error {
	if c.Docs < 0 || c.Bytes < 0 || c.IDBytes < 0 {
		return fmt.Errorf("docdb: span aggregate of collection %d at %d would be negative", id, start)
	}
	if c == (SpanCount{}) {
		return b.Delete(SpanKey(id, start))
	}
	v := make([]byte, 0, 24)
	v = binary.BigEndian.AppendUint64(v, uint64(c.Docs))
	v = binary.BigEndian.AppendUint64(v, uint64(c.Bytes))
	v = binary.BigEndian.AppendUint64(v, uint64(c.IDBytes))
	return b.Set(SpanKey(id, start), v)
}

// AddSpan adds c to the change of the span starting at start.
func (d *Delta) AddSpan(start int64, c SpanCount) {
	if d.Spans == nil {
		d.Spans = map[int64]SpanCount{}
	}
	d.Spans[start] = d.Spans[start].Add(c)
}

// StageSpans writes into b the aggregates of collection id as they will be
// after d's span changes, reading their current values through st. The
// caller holds the collection's write lock, so no other batch changes them
// before b commits.
func StageSpans(st storage.Reader, b *storage.Batch, id uint64, d Delta) error {
	for _, start := range slices.Sorted(maps.Keys(d.Spans)) {
		cur, err := GetSpan(st, id, start)
		if err != nil {
			return err
		}
		if err := PutSpan(b, id, start, cur.Add(d.Spans[start])); err != nil {
			return err
		}
	}
	return nil
}
