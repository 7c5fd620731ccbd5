package stored

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// genBSONValue draws a value of any BSON type, nested up to depth.
func genBSONValue(t *rapid.T, depth int) any {
	kinds := 22
	if depth <= 0 {
		kinds = 20 // no documents or arrays
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return rapid.Float64().Draw(t, "double")
	case 1:
		return rapid.SampledFrom([]float64{math.NaN(), math.Inf(1), math.Copysign(0, -1)}).Draw(t, "special")
	case 2:
		return rapid.String().Draw(t, "string")
	case 3:
		return bson.Binary{Subtype: rapid.SampledFrom([]byte{0, 1, 3, 4, 5, 0x80}).Draw(t, "subtype"), Data: rapid.SliceOf(rapid.Byte()).Draw(t, "data")}
	case 4:
		return bson.Binary{Subtype: 2, Data: rapid.SliceOf(rapid.Byte()).Draw(t, "old")}
	case 5:
		return bson.Undefined{}
	case 6:
		return bson.NewObjectIDFromTimestamp(bson.DateTime(rapid.Int64Range(0, 1<<40).Draw(t, "oid")).Time())
	case 7:
		return rapid.Bool().Draw(t, "bool")
	case 8:
		return bson.DateTime(rapid.Int64().Draw(t, "date"))
	case 9:
		return nil
	case 10:
		return bson.Regex{Pattern: rapid.StringMatching(`[a-z.*]{0,5}`).Draw(t, "re"), Options: rapid.SampledFrom([]string{"", "i", "imx"}).Draw(t, "opts")}
	case 11:
		return bson.DBPointer{DB: "db.c", Pointer: bson.NewObjectID()}
	case 12:
		return bson.JavaScript("function() {}")
	case 13:
		return bson.Symbol("sym")
	case 14:
		return bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "a", Value: int32(1)}}}
	case 15:
		return rapid.Int32().Draw(t, "int32")
	case 16:
		return bson.Timestamp{T: rapid.Uint32().Draw(t, "t"), I: rapid.Uint32().Draw(t, "i")}
	case 17:
		return rapid.Int64().Draw(t, "int64")
	case 18:
		return bson.NewDecimal128(rapid.Uint64().Draw(t, "h"), rapid.Uint64().Draw(t, "l"))
	case 19:
		return rapid.SampledFrom([]any{bson.MinKey{}, bson.MaxKey{}}).Draw(t, "minmax")
	case 20:
		return genBSONDoc(t, depth-1)
	default:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		a := bson.A{}
		for range n {
			a = append(a, genBSONValue(t, depth-1))
		}
		return a
	}
}

func genBSONDoc(t *rapid.T, depth int) bson.D {
	n := rapid.IntRange(0, 4).Draw(t, "fields")
	d := bson.D{}
	for i := range n {
		d = append(d, bson.E{Key: rapid.SampledFrom([]string{"a", "b", "at", "x.y", "é"}).Draw(t, "key") + strconv.FormatInt(int64(i), 10), Value: genBSONValue(t, depth)})
	}
	return d
}

// Ensure that DecodeDoc gives exactly what bson.Unmarshal into a bson.D
// gives, or declines.
func TestDecodeDocMatchesUnmarshal(t *testing.T) {
	declined := 0
	rapid.Check(t, func(t *rapid.T) {
		doc := append(bson.D{{Key: "_id", Value: genBSONValue(t, 1)}}, genBSONDoc(t, 3)...)
		raw, err := bson.Marshal(doc)
		if err != nil {
			t.Skip(err)
		}
		var want bson.D
		if err := bson.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := DecodeDoc(raw)
		if !ok {
			declined++
			return
		}
		if !sameDecoded(got, want) {
			t.Fatalf("DecodeDoc\n  %#v\nbson.Unmarshal\n  %#v", got, want)
		}
	})
	if declined == 0 {
		t.Fatal("no document with a rare type was drawn")
	}
	for _, bad := range [][]byte{nil, {5, 0, 0, 0}, {6, 0, 0, 0, 0x10, 0}, {12, 0, 0, 0, 0x10, 'a', 0, 1, 0, 0, 0, 1}} {
		if _, ok := DecodeDoc(bad); ok {
			t.Errorf("DecodeDoc accepted malformed %v", bad)
		}
	}
}

// sameDecoded is reflect.DeepEqual, except that doubles compare by their
// bits (NaN is not equal to itself under DeepEqual).
func sameDecoded(a, b any) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	switch x := a.(type) {
	case float64:
		return math.Float64bits(x) == math.Float64bits(b.(float64))
	case bson.D:
		y := b.(bson.D)
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !sameDecoded(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y := b.(bson.A)
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameDecoded(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func BenchmarkDecodeDoc(b *testing.B) {
	raw, _ := bson.Marshal(d("_id", int32(7), "at", bson.DateTime(1e12), "user", int32(3), "pad", bson.Binary{Data: make([]byte, 100)},
		"tags", bson.A{"a", "b"}, "sub", d("x", 1.5, "y", "z")))
	b.Run("decodeDoc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			DecodeDoc(raw)
		}
	})
	b.Run("bson.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var doc bson.D
			bson.Unmarshal(raw, &doc)
		}
	})
}

// d builds a bson.D from alternating keys and values.
func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}
