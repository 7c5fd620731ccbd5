package timeseries

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// A bucket's limits, MongoDB's timeseriesBucketMaxCount and
// timeseriesBucketMaxSize.
const (
	MaxCount = 1000
	MaxBytes = 125 * 1024
)

// Bucket is a bucket document, decoded.
type Bucket struct {
	ID bson.ObjectID
	// Start is control.min.<time> and Latest control.max.<time>, in Unix ms.
	Start, Latest int64
	// Meta is the meta value and MetaKey its BSON type and bytes; HasMeta is
	// false when the measurements have no metaField.
	Meta    any
	MetaKey []byte
	HasMeta bool
	// Count is the number of measurements, Bytes their BSON size.
	Count, Bytes int
	cols         []column // in the order fields were first seen; the time field's first
}

// column is one field's values, in measurement order.
type column struct {
	name  string
	cells []cell
}

type cell struct {
	at int
	v  any
}

// Measurement is one measurement ready to be bucketed: its time, its meta
// value (if any) and its other fields in order.
type Measurement struct {
	Time    int64 // Unix ms
	Meta    any
	MetaKey []byte
	HasMeta bool
	Fields  bson.D // the fields but the metaField, the time field among them
	Bytes   int
}

// NewMeasurement checks a document inserted into a time-series collection
// and splits it into its time, meta and other fields. The time field must
// hold a Date.
func (o Options) NewMeasurement(doc bson.D, size int) (Measurement, error) {
	m := Measurement{Bytes: size, Fields: make(bson.D, 0, len(doc))}
	hasTime := false
	for _, e := range doc {
		switch {
		case e.Key == o.TimeField:
			t, ok := e.Value.(bson.DateTime)
			if !ok {
				return m, timeFieldError(o.TimeField)
			}
			m.Time, hasTime = int64(t), true
			m.Fields = append(m.Fields, e)
		case o.MetaField != "" && e.Key == o.MetaField:
			key, err := valueKey(e.Value)
			if err != nil {
				return m, err
			}
			m.Meta, m.MetaKey, m.HasMeta = e.Value, key, true
		default:
			m.Fields = append(m.Fields, e)
		}
	}
	if !hasTime {
		return m, timeFieldError(o.TimeField)
	}
	return m, nil
}

func timeFieldError(field string) error {
	return mongoerr.Newf(mongoerr.BadValue, "'%s' must be present and contain a valid BSON UTC datetime value", field)
}

// valueKey is the BSON type and bytes of v, which identify a meta value.
func valueKey(v any) ([]byte, error) {
	t, b, err := bson.MarshalValue(v)
	if err != nil {
		return nil, fmt.Errorf("timeseries: meta value: %w", err)
	}
	return append([]byte{byte(t)}, b...), nil
}

// StartOf returns the start (Unix ms) of the bucket of a measurement at
// time ms: ms rounded down to a multiple of the bucket span.
func (o Options) StartOf(ms int64) int64 {
	span := o.MaxSpan * 1000
	start := ms - ms%span
	if ms%span < 0 {
		start -= span
	}
	return start
}

// BucketID returns the _id of the probe-th bucket of start (Unix ms) for
// the meta value with key metaKey (nil without a meta field).
func BucketID(start int64, metaKey []byte, probe uint64) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], uint32(floorDiv(start, 1000)))
	h := fnv.New64a()
	h.Write(metaKey)
	binary.BigEndian.PutUint64(id[4:], h.Sum64()+probe)
	return id
}

// IDLowerBound returns the smallest bucket _id of buckets starting at or
// after start (Unix ms); buckets of the extended range aside, the buckets
// starting before start sort before it.
func IDLowerBound(start int64) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], uint32(floorDiv(start, 1000)))
	return id
}

// ExtendedRangeStart is the smallest bucket _id of the extended range:
// times at or after 2038-01-19T03:14:08Z, and (wrapped) before 1970.
func ExtendedRangeStart() bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], 1<<31)
	return id
}

// InExtendedRange reports whether a time (Unix ms) is in the extended
// range, where a bucket's _id no longer sorts by time.
func InExtendedRange(ms int64) bool {
	s := floorDiv(ms, 1000)
	return s < 0 || s >= 1<<31
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// NewBucket returns an empty bucket for m with the given _id.
func (o Options) NewBucket(id bson.ObjectID, m Measurement) *Bucket {
	return &Bucket{ID: id, Start: o.StartOf(m.Time), Latest: m.Time, Meta: m.Meta, MetaKey: m.MetaKey, HasMeta: m.HasMeta,
		cols: []column{{name: o.TimeField}}}
}

// Holds reports whether m belongs in b: the same start and meta value.
func (o Options) Holds(b *Bucket, m Measurement) bool {
	return b.Start == o.StartOf(m.Time) && b.HasMeta == m.HasMeta && string(b.MetaKey) == string(m.MetaKey)
}

// Fits reports whether b has room for m.
func (b *Bucket) Fits(m Measurement) bool {
	return b.Count == 0 || (b.Count < MaxCount && b.Bytes+m.Bytes <= MaxBytes)
}

// Add appends m to b; the caller has checked Holds and Fits.
func (b *Bucket) Add(m Measurement) {
	at := b.Count
	for _, f := range m.Fields {
		i := b.col(f.Key)
		b.cols[i].cells = append(b.cols[i].cells, cell{at: at, v: f.Value})
	}
	b.Count++
	b.Bytes += m.Bytes
	b.Latest = max(b.Latest, m.Time)
}

func (b *Bucket) col(name string) int {
	for i := range b.cols {
		if b.cols[i].name == name {
			return i
		}
	}
	b.cols = append(b.cols, column{name: name})
	return len(b.cols) - 1
}

// BucketDoc returns the bucket document.
func (o Options) BucketDoc(b *Bucket) bson.D {
	data := make(bson.D, 0, len(b.cols))
	for _, c := range b.cols {
		vals := make(bson.D, len(c.cells))
		for i, x := range c.cells {
			vals[i] = bson.E{Key: strconv.Itoa(x.at), Value: x.v}
		}
		data = append(data, bson.E{Key: c.name, Value: vals})
	}
	d := bson.D{
		{Key: "_id", Value: b.ID},
		{Key: "control", Value: bson.D{
			{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: o.TimeField, Value: bson.DateTime(b.Start)}}},
			{Key: "max", Value: bson.D{{Key: o.TimeField, Value: bson.DateTime(b.Latest)}}},
		}},
	}
	if b.HasMeta {
		d = append(d, bson.E{Key: "meta", Value: b.Meta})
	}
	return append(d, bson.E{Key: "data", Value: data})
}

// Decode reads a bucket document written by BucketDoc; size is its BSON size,
// which stands for the size of the measurements it holds.
func (o Options) Decode(doc bson.D, size int) (*Bucket, error) {
	b := &Bucket{Bytes: size}
	for _, e := range doc {
		switch e.Key {
		case "_id":
			id, ok := e.Value.(bson.ObjectID)
			if !ok {
				return nil, fmt.Errorf("timeseries: bucket _id of type %T", e.Value)
			}
			b.ID = id
		case "control":
			ctl, _ := e.Value.(bson.D)
			for _, c := range ctl {
				m, _ := c.Value.(bson.D)
				for _, f := range m {
					if f.Key != o.TimeField {
						continue
					}
					t, _ := f.Value.(bson.DateTime)
					switch c.Key {
					case "min":
						b.Start = int64(t)
					case "max":
						b.Latest = int64(t)
					}
				}
			}
		case "meta":
			key, err := valueKey(e.Value)
			if err != nil {
				return nil, err
			}
			b.Meta, b.MetaKey, b.HasMeta = e.Value, key, true
		case "data":
			data, _ := e.Value.(bson.D)
			for _, c := range data {
				vals, _ := c.Value.(bson.D)
				col := column{name: c.Key, cells: make([]cell, 0, len(vals))}
				for _, v := range vals {
					at, err := strconv.Atoi(v.Key)
					if err != nil || at < 0 {
						return nil, fmt.Errorf("timeseries: bucket %s: data.%s.%s", b.ID.Hex(), c.Key, v.Key)
					}
					col.cells = append(col.cells, cell{at: at, v: v.Value})
					b.Count = max(b.Count, at+1)
				}
				b.cols = append(b.cols, col)
			}
		}
	}
	return b, nil
}

// Unpack returns the measurements of b as the time-series collection shows
// them: the time field, the meta field, then the other fields in the order
// the bucket first saw them.
func (o Options) Unpack(b *Bucket) []bson.D {
	out := make([]bson.D, b.Count)
	for i := range out {
		out[i] = make(bson.D, 0, len(b.cols)+1)
	}
	put := func(c column) {
		for _, x := range c.cells {
			if x.at < len(out) {
				out[x.at] = append(out[x.at], bson.E{Key: c.name, Value: x.v})
			}
		}
	}
	for _, c := range b.cols {
		if c.name == o.TimeField {
			put(c)
		}
	}
	if b.HasMeta {
		for i := range out {
			out[i] = append(out[i], bson.E{Key: o.MetaField, Value: b.Meta})
		}
	}
	for _, c := range b.cols {
		if c.name != o.TimeField {
			put(c)
		}
	}
	return out
}

// TimeOf returns the time (Unix ms) of an unpacked measurement.
func (o Options) TimeOf(m bson.D) (int64, bool) {
	for _, e := range m {
		if e.Key == o.TimeField {
			t, ok := e.Value.(bson.DateTime)
			return int64(t), ok
		}
	}
	return 0, false
}
