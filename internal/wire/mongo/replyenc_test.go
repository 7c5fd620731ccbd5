package mongo

import (
	"bytes"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// Ensure that appendDoc encodes every reply exactly as bson.Marshal does,
// and declines what it does not encode so that the caller falls back.
func TestAppendDocMatchesMarshal(t *testing.T) {
	oid := bson.NewObjectID()
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: int64(7)}, {Key: "s", Value: "x"}})
	raw := bson.Raw(b)
	tests := []struct {
		name string
		doc  bson.D
		ok   bool
	}{
		{"empty", bson.D{}, true},
		{"nil", nil, false}, // bson.Marshal refuses it
		{"[]byte", bson.D{{Key: "b", Value: b}}, false},
		{"scalars", bson.D{
			{Key: "null", Value: nil}, {Key: "t", Value: true}, {Key: "f", Value: false},
			{Key: "i32", Value: int32(-5)}, {Key: "i64", Value: int64(math.MaxInt64)},
			{Key: "int", Value: 3}, {Key: "bigint", Value: math.MaxInt32 + 1}, {Key: "negint", Value: math.MinInt32 - 1},
			{Key: "d", Value: 1.5}, {Key: "nan", Value: math.NaN()}, {Key: "negzero", Value: math.Copysign(0, -1)},
			{Key: "s", Value: "héllo\x00world"}, {Key: "empty", Value: ""},
			{Key: "date", Value: bson.DateTime(-1)}, {Key: "oid", Value: oid},
			{Key: "ts", Value: bson.Timestamp{T: 1, I: 2}},
		}, true},
		{"nested", bson.D{
			{Key: "cursor", Value: bson.Raw(cursorDoc("firstBatch", []bson.Raw{raw, raw}, 0, "db.c"))},
			{Key: "arr", Value: bson.A{int32(1), "two", bson.D{{Key: "three", Value: 3.0}}, bson.A{}, raw}},
			{Key: "doc", Value: bson.D{}}, {Key: "ok", Value: 1.0},
		}, true},
		{"error reply", errorDoc(errorf(11000, "E11000 duplicate key")), true},
		{"empty key", bson.D{{Key: "", Value: int32(1)}}, true},
		{"key with NUL", bson.D{{Key: "a\x00b", Value: int32(1)}}, false},
		{"malformed raw", bson.D{{Key: "r", Value: bson.Raw{5, 0, 0, 0, 1}}}, false},
		{"empty raw", bson.D{{Key: "r", Value: bson.Raw(nil)}}, false},
		{"nil bson.D value", bson.D{{Key: "d", Value: bson.D(nil)}}, false},
		{"nil bson.A value", bson.D{{Key: "a", Value: bson.A(nil)}}, false},
		{"time.Time", bson.D{{Key: "t", Value: time.Unix(1, 0)}}, false},
		{"map", bson.D{{Key: "m", Value: map[string]any{"a": 1}}}, false},
		{"unsupported in array", bson.D{{Key: "a", Value: bson.A{bson.Decimal128{}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix")
			got, ok := appendDoc(append([]byte(nil), prefix...), tt.doc)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			want, err := bson.Marshal(tt.doc)
			if err != nil {
				t.Fatalf("bson.Marshal: %v", err)
			}
			if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
				t.Fatalf("appendDoc = %x\nbson.Marshal = %x", got[len(prefix):], want)
			}
		})
	}
}

// Ensure that appendDoc agrees with bson.Marshal on random replies.
func TestAppendDocMatchesMarshalRandom(t *testing.T) {
	var value func(depth int) *rapid.Generator[any]
	value = func(depth int) *rapid.Generator[any] {
		gens := []*rapid.Generator[any]{
			rapid.Just[any](nil),
			rapid.Map(rapid.Bool(), func(v bool) any { return v }),
			rapid.Map(rapid.Int32(), func(v int32) any { return v }),
			rapid.Map(rapid.Int64(), func(v int64) any { return v }),
			rapid.Map(rapid.Int(), func(v int) any { return v }),
			rapid.Map(rapid.Float64(), func(v float64) any { return v }),
			rapid.Map(rapid.String(), func(v string) any { return v }),
			rapid.Map(rapid.Int64(), func(v int64) any { return bson.DateTime(v) }),
			rapid.Map(rapid.Uint32(), func(v uint32) any { return bson.Timestamp{T: v, I: v / 3} }),
		}
		if depth > 0 {
			gens = append(gens,
				rapid.Map(rapid.SliceOfN(value(depth-1), 0, 4), func(v []any) any { return bson.A(v) }),
				rapid.Map(rapid.SliceOfN(value(depth-1), 0, 4), func(v []any) any {
					d := bson.D{}
					for i, x := range v {
						d = append(d, bson.E{Key: string(rune('a' + i)), Value: x})
					}
					return d
				}),
			)
		}
		return rapid.OneOf(gens...)
	}
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfN(rapid.StringMatching(`[a-z$.]{0,6}`), 0, 6).Draw(t, "keys")
		d := bson.D{}
		for i, k := range keys {
			d = append(d, bson.E{Key: k, Value: value(2).Draw(t, "v"+itoa(i))})
		}
		want, err := bson.Marshal(d)
		if err != nil {
			t.Fatalf("bson.Marshal: %v", err)
		}
		got, ok := appendDoc(nil, d)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("appendDoc = %x, %v\nbson.Marshal = %x", got, ok, want)
		}
	})
}
