package update

import (
	"math/big"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// Two $inc in a row equal one $inc of the sum, while int64 does not
// overflow (MongoDB's SafeNum arithmetic).
func TestPropertyIncComposes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.Int64Range(-1<<40, 1<<40).Draw(t, "start")
		x := rapid.Int32().Draw(t, "x")
		y := rapid.Int32().Draw(t, "y")
		doc := bson.D{{Key: "_id", Value: int32(1)}, {Key: "n", Value: start}}
		inc := func(d bson.D, by any) bson.D {
			u, err := Parse(bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: by}}}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := u.Apply(d, ApplyContext{})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		twice := inc(inc(doc, x), y)
		once := inc(doc, int64(x)+int64(y))
		if !StrictEqual(twice, once) {
			t.Fatalf("inc %d then %d = %v; inc %d = %v", x, y, twice, int64(x)+int64(y), once)
		}
	})
}

// $inc of int32 values is exact: the result is int32 when it fits and
// int64 otherwise, never a double.
func TestPropertyIncInt32Widening(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int32().Draw(t, "a")
		b := rapid.Int32().Draw(t, "b")
		got, ok := aggregate.AddNumbers(a, b)
		sum := new(big.Int).Add(big.NewInt(int64(a)), big.NewInt(int64(b)))
		if !ok {
			t.Fatal("int32 addition cannot overflow int64")
		}
		switch v := got.(type) {
		case int32:
			if int64(v) != sum.Int64() {
				t.Fatalf("%d+%d=%d", a, b, v)
			}
		case int64:
			if v != sum.Int64() || (v >= -1<<31 && v < 1<<31) {
				t.Fatalf("%d+%d=%d (int64)", a, b, v)
			}
		default:
			t.Fatalf("%d+%d gave %T", a, b, got)
		}
	})
}

// genValue draws a small BSON value.
func genValue(depth int) *rapid.Generator[any] {
	scalars := rapid.OneOf(
		rapid.Map(rapid.Int32Range(-5, 5), func(i int32) any { return i }),
		rapid.Map(rapid.Int64Range(-5, 5), func(i int64) any { return i }),
		rapid.Map(rapid.Float64Range(-5, 5), func(f float64) any { return f }),
		rapid.SampledFrom([]any{"x", "y", nil, true}),
	)
	if depth <= 0 {
		return scalars
	}
	return rapid.OneOf(scalars,
		rapid.Custom(func(t *rapid.T) any {
			n := rapid.IntRange(0, 3).Draw(t, "n")
			a := bson.A{}
			for i := 0; i < n; i++ {
				a = append(a, genValue(depth-1).Draw(t, "e"))
			}
			return a
		}),
		rapid.Custom(func(t *rapid.T) any {
			n := rapid.IntRange(0, 3).Draw(t, "n")
			d := bson.D{}
			for i := 0; i < n; i++ {
				d = append(d, bson.E{Key: rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "k"), Value: genValue(depth-1).Draw(t, "v")})
			}
			return d
		}))
}

var paths = []string{"a", "b", "a.b", "a.0", "b.c.d", "arr", "arr.1", "arr.$[]", "arr.$", "arr.$[x]", "_id", "n"}

var ops = []string{"$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$setOnInsert", "$currentDate", "$push", "$addToSet", "$pop", "$pull", "$pullAll"}

// Random operator updates over random documents: Parse and Apply return
// errors or documents, never panic, and never modify the input.
func TestPropertyRandomUpdates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := bson.D{{Key: "_id", Value: int32(1)}}
		for _, k := range []string{"a", "arr", "n"} {
			if rapid.Bool().Draw(t, "has"+k) {
				doc = append(doc, bson.E{Key: k, Value: genValue(2).Draw(t, k)})
			}
		}
		upd := bson.D{}
		for i, n := 0, rapid.IntRange(1, 3).Draw(t, "nops"); i < n; i++ {
			fields := bson.D{}
			for j, m := 0, rapid.IntRange(1, 2).Draw(t, "nfields"); j < m; j++ {
				var arg any
				if rapid.Bool().Draw(t, "pathArg") {
					arg = rapid.SampledFrom(paths).Draw(t, "to")
				} else {
					arg = genValue(2).Draw(t, "arg")
				}
				fields = append(fields, bson.E{Key: rapid.SampledFrom(paths).Draw(t, "path"), Value: arg})
			}
			upd = append(upd, bson.E{Key: rapid.SampledFrom(ops).Draw(t, "op"), Value: fields})
		}
		var filters []bson.D
		if rapid.Bool().Draw(t, "filter") {
			filters = []bson.D{{{Key: "x", Value: bson.D{{Key: "$gt", Value: int32(0)}}}}}
		}
		u, err := Parse(upd, Options{ArrayFilters: filters})
		if err != nil {
			return
		}
		before := aggregate.CloneDoc(doc)
		out, modified, err := u.Apply(doc, ApplyContext{Insert: rapid.Bool().Draw(t, "insert"), HasPosition: true, Position: rapid.IntRange(0, 3).Draw(t, "pos"), Now: time.Unix(0, 0)})
		if !StrictEqual(before, doc) {
			t.Fatal("Apply modified its input")
		}
		if err != nil {
			return
		}
		if modified == StrictEqual(out, doc) {
			t.Fatalf("modified=%v but equality says %v", modified, StrictEqual(out, doc))
		}
		// Applying the result's own values with $set is a no-op.
		if len(out) > 1 {
			set := append(bson.D{}, out[1:]...)
			u2, err := Parse(bson.D{{Key: "$set", Value: set}}, Options{})
			if err != nil {
				return
			}
			_, mod2, err := u2.Apply(out, ApplyContext{})
			if err == nil && mod2 {
				t.Fatalf("$set of the current values reported a modification: %v", aggregate.FormatValue(out))
			}
		}
	})
}
