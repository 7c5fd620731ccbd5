package timeseries

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Bounds is what a query's filter says of the buckets it can match: the
// measurement times it allows, [Lo, Hi] in Unix ms, and the one meta value
// it requires, when it requires one. It only narrows what is read: every
// measurement read is matched against the whole filter again.
type Bounds struct {
	Lo, Hi  int64
	MetaKey []byte // nil: any meta value
}

// All is the bounds of a filter that says nothing of time or meta.
func All() Bounds { return Bounds{Lo: math.MinInt64, Hi: math.MaxInt64} }

// BoundsOf returns the bounds of a find or $match filter: Date
// comparisons ($eq, $gt, $gte, $lt, $lte, or a Date itself) on the time
// field and equality with a string, ObjectId or boolean on the meta field, at the top level or in a top-level $and.
func (o Options) BoundsOf(filter bson.D) Bounds {
	b := All()
	o.narrow(&b, filter)
	return b
}

func (o Options) narrow(b *Bounds, filter bson.D) {
	for _, e := range filter {
		switch {
		case e.Key == "$and":
			arr, _ := e.Value.(bson.A)
			for _, x := range arr {
				if d, ok := x.(bson.D); ok {
					o.narrow(b, d)
				}
			}
		case e.Key == o.TimeField:
			narrowTime(b, e.Value)
		case o.MetaField != "" && e.Key == o.MetaField:
			// Only values equal to no value of another BSON encoding: a
			// number equals numbers of other types, a document holds them.
			switch e.Value.(type) {
			case string, bson.ObjectID, bool:
				if key, err := valueKey(e.Value); err == nil {
					b.MetaKey = key
				}
			}
		}
	}
}

func narrowTime(b *Bounds, v any) {
	if t, ok := v.(bson.DateTime); ok {
		b.Lo, b.Hi = max(b.Lo, int64(t)), min(b.Hi, int64(t))
		return
	}
	ops, ok := v.(bson.D)
	if !ok {
		return
	}
	for _, op := range ops {
		t, ok := op.Value.(bson.DateTime)
		if !ok {
			continue
		}
		ms := int64(t)
		switch op.Key {
		case "$eq":
			b.Lo, b.Hi = max(b.Lo, ms), min(b.Hi, ms)
		case "$gt":
			if ms < math.MaxInt64 {
				b.Lo = max(b.Lo, ms+1)
			}
		case "$gte":
			b.Lo = max(b.Lo, ms)
		case "$lt":
			if ms > math.MinInt64 {
				b.Hi = min(b.Hi, ms-1)
			}
		case "$lte":
			b.Hi = min(b.Hi, ms)
		}
	}
}

// Empty reports whether no time is allowed.
func (b Bounds) Empty() bool { return b.Lo > b.Hi }

// Overlaps reports whether bucket bk can hold a measurement within b.
func (b Bounds) Overlaps(bk *Bucket) bool {
	if b.MetaKey != nil && string(bk.MetaKey) != string(b.MetaKey) {
		return false
	}
	return bk.Latest >= b.Lo && bk.Start <= b.Hi
}
