package timeseries

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func ms(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func TestNormalizeDefaults(t *testing.T) {
	cases := []struct {
		in             Options
		gran           string
		span, rounding int64
	}{
		{Options{TimeField: "t"}, "seconds", 3600, 60},
		{Options{TimeField: "t", Granularity: "minutes"}, "minutes", 86400, 3600},
		{Options{TimeField: "t", Granularity: "hours", MaxSpan: 2592000}, "hours", 2592000, 86400},
		{Options{TimeField: "t", MaxSpan: 600, Rounding: 600}, "", 600, 600},
	}
	for _, tc := range cases {
		o := tc.in
		if err := o.Normalize("db.c"); err != nil {
			t.Fatalf("%+v: %v", tc.in, err)
		}
		if o.Granularity != tc.gran || o.MaxSpan != tc.span || o.Rounding != tc.rounding {
			t.Fatalf("%+v normalized to %+v", tc.in, o)
		}
		back, err := FromDoc(o.OptionsDoc())
		if err != nil || back != o {
			t.Fatalf("%+v read back as %+v (%v)", o, back, err)
		}
	}
}

func TestStartOfAndIDOrder(t *testing.T) {
	o := Options{TimeField: "t", MaxSpan: 3600, Rounding: 60}
	cases := []struct{ at, start string }{
		{"2026-03-01T10:59:59Z", "2026-03-01T10:00:00Z"},
		{"2026-03-01T11:00:00Z", "2026-03-01T11:00:00Z"},
		{"1969-12-31T23:30:00Z", "1969-12-31T23:00:00Z"}, // before 1970 rounds down too
	}
	for _, tc := range cases {
		if got := o.StartOf(ms(tc.at)); got != ms(tc.start) {
			t.Fatalf("StartOf(%s) = %v", tc.at, time.UnixMilli(got).UTC())
		}
	}
	// Bucket _ids sort by start, whatever the meta value.
	a := BucketID(ms("2026-03-01T10:00:00Z"), []byte("zzz"), 0)
	b := BucketID(ms("2026-03-01T11:00:00Z"), []byte("aaa"), 0)
	if bytes.Compare(a[:], b[:]) >= 0 {
		t.Fatalf("%x does not sort before %x", a, b)
	}
	if lo := IDLowerBound(ms("2026-03-01T11:00:00Z")); bytes.Compare(lo[:], b[:]) > 0 || bytes.Compare(lo[:], a[:]) <= 0 {
		t.Fatal("IDLowerBound is not between the hours")
	}
	if !InExtendedRange(ms("1969-12-31T23:30:00Z")) || !InExtendedRange(ms("2038-01-19T03:14:08Z")) || InExtendedRange(ms("2038-01-19T03:14:07Z")) {
		t.Fatal("extended range")
	}
}

func TestBucketRoundTrip(t *testing.T) {
	o := Options{TimeField: "t", MetaField: "m", MaxSpan: 3600, Rounding: 60}
	var b *Bucket
	docs := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "t", Value: bson.DateTime(ms("2026-03-01T10:05:00Z"))}, {Key: "m", Value: "x"}, {Key: "a", Value: int32(1)}},
		{{Key: "m", Value: "x"}, {Key: "t", Value: bson.DateTime(ms("2026-03-01T10:01:00Z"))}, {Key: "_id", Value: int32(2)}, {Key: "b", Value: "y"}},
	}
	for _, d := range docs {
		m, err := o.NewMeasurement(d, 50)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			b = o.NewBucket(BucketID(o.StartOf(m.Time), m.MetaKey, 0), m)
		}
		if !o.Holds(b, m) || !b.Fits(m) {
			t.Fatal("the bucket does not take its measurement")
		}
		b.Add(m)
	}
	raw, err := bson.Marshal(o.BucketDoc(b))
	if err != nil {
		t.Fatal(err)
	}
	var doc bson.D
	if err := bson.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	back, err := o.Decode(doc, len(raw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Count != 2 || back.Start != ms("2026-03-01T10:00:00Z") || back.Latest != ms("2026-03-01T10:05:00Z") || !back.HasMeta {
		t.Fatalf("decoded %+v", back)
	}
	got := o.Unpack(back)
	want := []string{
		`[{t 1772359500000} {m x} {_id 1} {a 1}]`,
		`[{t 1772359260000} {m x} {_id 2} {b y}]`,
	}
	for i := range got {
		if s := fmtD(got[i]); s != want[i] {
			t.Fatalf("measurement %d: %s, want %s", i, s, want[i])
		}
	}
	if _, err := o.NewMeasurement(bson.D{{Key: "t", Value: "not a date"}}, 10); err == nil {
		t.Fatal("a string time was taken")
	}
}

// fmtD renders a measurement's fields as {key value} pairs, dates as
// Unix milliseconds.
func fmtD(d bson.D) string {
	parts := make([]string, len(d))
	for i, e := range d {
		v := e.Value
		if t, ok := v.(bson.DateTime); ok {
			v = int64(t)
		}
		parts[i] = fmt.Sprintf("{%s %v}", e.Key, v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestBoundsOf(t *testing.T) {
	o := Options{TimeField: "t", MetaField: "m", MaxSpan: 3600, Rounding: 60}
	lo, hi := bson.DateTime(ms("2026-03-01T10:00:00Z")), bson.DateTime(ms("2026-03-01T11:00:00Z"))
	cases := []struct {
		name   string
		filter bson.D
		lo, hi int64
		meta   bool
	}{
		{"nothing", bson.D{{Key: "x", Value: 1}}, math.MinInt64, math.MaxInt64, false},
		{"a range", bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lt", Value: hi}}}}, int64(lo), int64(hi) - 1, false},
		{"in $and, with meta", bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "t", Value: bson.D{{Key: "$gt", Value: lo}}}}, bson.D{{Key: "m", Value: "x"}}}}}, int64(lo) + 1, math.MaxInt64, true},
		{"a number meta is not pushed down", bson.D{{Key: "m", Value: 1}}, math.MinInt64, math.MaxInt64, false},
		{"an equal date", bson.D{{Key: "t", Value: lo}}, int64(lo), int64(lo), false},
	}
	for _, tc := range cases {
		b := o.BoundsOf(tc.filter)
		if b.Lo != tc.lo || b.Hi != tc.hi || (b.MetaKey != nil) != tc.meta {
			t.Fatalf("%s: %+v", tc.name, b)
		}
	}
}
