package query

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

func dec(t testing.TB, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatalf("parse decimal %q: %v", s, err)
	}
	return d
}

func TestCompareTypeOrder(t *testing.T) {
	// Rule: values of different types sort by MongoDB's canonical type order
	// (bsontypes.h canonicalizeBSONType), regardless of their values.
	oid := bson.ObjectID{1}
	ordered := []any{
		bson.MinKey{},
		bson.Undefined{},
		nil,
		math.Inf(1),
		"",
		bson.D{},
		bson.A{},
		bson.Binary{},
		oid,
		false,
		bson.DateTime(math.MinInt64),
		bson.Timestamp{},
		bson.Regex{},
		bson.DBPointer{},
		bson.JavaScript(""),
		bson.CodeWithScope{Scope: bson.D{}},
		bson.MaxKey{},
	}
	for i := range ordered {
		for j := range ordered {
			want := cmpInt(i, j)
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%#v, %#v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestCompareValues(t *testing.T) {
	cases := []struct {
		rule string
		a, b any
		want int
	}{
		{"int32 equals double of same value", int32(1), 1.0, 0},
		{"int64 equals decimal of same value", int64(5), dec(t, "5.000"), 0},
		{"int compared exactly to double beyond 2^53", int64(1<<53 + 1), float64(1 << 53), 1},
		{"int64 max below 2^63 double", int64(math.MaxInt64), 0x1p63, -1},
		{"int64 min equals -2^63 double", int64(math.MinInt64), -0x1p63, 0},
		{"fraction above integer", int32(2), 2.5, -1},
		{"negative fraction", int32(-2), -2.5, 1},
		{"NaN equals NaN", math.NaN(), math.NaN(), 0},
		{"NaN below -Inf", math.NaN(), math.Inf(-1), -1},
		{"NaN below int", math.NaN(), int32(-5), -1},
		{"decimal NaN equals double NaN", dec(t, "NaN"), math.NaN(), 0},
		{"decimal Inf equals double Inf", dec(t, "Infinity"), math.Inf(1), 0},
		{"decimal -Inf below int", dec(t, "-Infinity"), int64(math.MinInt64), -1},
		{"decimal 0.1 differs from double 0.1", dec(t, "0.1"), 0.1, -1},
		{"-0 equals 0", math.Copysign(0, -1), int32(0), 0},
		{"decimal -0 equals 0", dec(t, "-0"), 0.0, 0},
		{"decimal huge exponent", dec(t, "1E+6000"), math.MaxFloat64, 1},
		{"strings bytewise", "a", "b", -1},
		{"prefix string first", "ab", "abc", -1},
		{"uppercase before lowercase", "Z", "a", -1},
		{"symbol equals string", bson.Symbol("x"), "x", 0},
		{"docs: shorter prefix first", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}, -1},
		{"docs: field type before name", bson.D{{Key: "z", Value: 1}}, bson.D{{Key: "a", Value: "s"}}, -1},
		{"docs: field name before value", bson.D{{Key: "a", Value: 9}}, bson.D{{Key: "b", Value: 1}}, -1},
		{"docs: numbers by value", bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: 1.0}}, 0},
		{"docs: field order matters", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}, bson.D{{Key: "b", Value: 1}, {Key: "a", Value: 1}}, -1},
		{"arrays elementwise", bson.A{1, 2}, bson.A{1, 3}, -1},
		{"arrays prefix first", bson.A{1}, bson.A{1, 0}, -1},
		{"arrays element type order", bson.A{"a"}, bson.A{bson.D{}}, -1},
		{"binary by length first", bson.Binary{Subtype: 9, Data: []byte{9}}, bson.Binary{Data: []byte{0, 0}}, -1},
		{"binary then subtype", bson.Binary{Subtype: 1, Data: []byte{0}}, bson.Binary{Subtype: 0, Data: []byte{9}}, 1},
		{"binary then bytes", bson.Binary{Data: []byte{1}}, bson.Binary{Data: []byte{2}}, -1},
		{"objectid bytewise", bson.ObjectID{0, 1}, bson.ObjectID{1}, -1},
		{"false before true", false, true, -1},
		{"dates signed", bson.DateTime(-1), bson.DateTime(0), -1},
		{"time.Time as date", time.UnixMilli(5).UTC(), bson.DateTime(5), 0},
		{"timestamp by t then i", bson.Timestamp{T: 1, I: 9}, bson.Timestamp{T: 2, I: 0}, -1},
		{"timestamp unsigned", bson.Timestamp{T: math.MaxUint32}, bson.Timestamp{T: 1}, 1},
		{"regex pattern then options", bson.Regex{Pattern: "a", Options: "z"}, bson.Regex{Pattern: "b"}, -1},
		{"regex options", bson.Regex{Pattern: "a", Options: "i"}, bson.Regex{Pattern: "a", Options: "m"}, -1},
		{"dbpointer by ns length", bson.DBPointer{DB: "zz"}, bson.DBPointer{DB: "aaa"}, -1},
		{"code by text", bson.JavaScript("a"), bson.JavaScript("b"), -1},
		{"code with scope by scope", bson.CodeWithScope{Code: "a", Scope: bson.D{{Key: "x", Value: 1}}}, bson.CodeWithScope{Code: "a", Scope: bson.D{{Key: "x", Value: 2}}}, -1},
		{"null equals null", nil, bson.Null{}, 0},
		{"minkey equals minkey", bson.MinKey{}, bson.MinKey{}, 0},
		{"bson.M compared as sorted document", bson.M{"b": 1, "a": 1}, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}, 0},
		{"uint64 beyond int64", uint64(math.MaxUint64), int64(math.MaxInt64), 1},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			if got := Compare(c.a, c.b); got != c.want {
				t.Errorf("Compare(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
			}
			if got := Compare(c.b, c.a); got != -c.want {
				t.Errorf("Compare(%v, %v) = %d, want %d (reversed)", c.b, c.a, got, -c.want)
			}
		})
	}
}

func TestTypeOf(t *testing.T) {
	cases := []struct {
		v    any
		want bson.Type
	}{
		{nil, bson.TypeNull},
		{1, bson.TypeInt32},
		{1 << 40, bson.TypeInt64},
		{int64(1), bson.TypeInt64},
		{float32(1), bson.TypeDouble},
		{[]byte{1}, bson.TypeBinary},
		{bson.M{}, bson.TypeEmbeddedDocument},
		{[]any{}, bson.TypeArray},
		{time.Time{}, bson.TypeDateTime},
		{struct{}{}, 0},
	}
	for _, c := range cases {
		if got := TypeOf(c.v); got != c.want {
			t.Errorf("TypeOf(%#v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// genValue draws BSON values of every type, biased towards numbers that are
// equal across representations so the order's tie handling is exercised.
func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := 16
		if depth <= 0 {
			kinds = 14
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return int32(rapid.IntRange(-3, 3).Draw(t, "i32"))
		case 1:
			return rapid.SampledFrom([]int64{-3, 0, 2, 1 << 53, 1<<53 + 1, math.MaxInt64, math.MinInt64}).Draw(t, "i64")
		case 2:
			return rapid.SampledFrom([]float64{-3, -2.5, 0, math.Copysign(0, -1), 2, 0.1, 1 << 53, 0x1p63, math.NaN(), math.Inf(1), math.Inf(-1)}).Draw(t, "f")
		case 3:
			s := rapid.SampledFrom([]string{"2", "-2.50", "0.1", "NaN", "-Infinity", "1E+40", "9223372036854775807", "0"}).Draw(t, "d")
			d, _ := bson.ParseDecimal128(s)
			return d
		case 4:
			return rapid.SampledFrom([]string{"", "a", "ab", "b", "Z"}).Draw(t, "s")
		case 5:
			return bson.Symbol(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "sym"))
		case 6:
			return rapid.SampledFrom([]any{nil, bson.Undefined{}, bson.MinKey{}, bson.MaxKey{}}).Draw(t, "special")
		case 7:
			return rapid.Bool().Draw(t, "b")
		case 8:
			return bson.DateTime(rapid.Int64Range(-2, 2).Draw(t, "date"))
		case 9:
			return bson.Timestamp{T: uint32(rapid.IntRange(0, 2).Draw(t, "ts")), I: uint32(rapid.IntRange(0, 2).Draw(t, "inc"))}
		case 10:
			return bson.Binary{Subtype: byte(rapid.IntRange(0, 1).Draw(t, "sub")), Data: rapid.SliceOfN(rapid.Byte(), 0, 2).Draw(t, "data")}
		case 11:
			return bson.ObjectID{byte(rapid.IntRange(0, 2).Draw(t, "oid"))}
		case 12:
			return bson.Regex{Pattern: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pat"), Options: rapid.SampledFrom([]string{"", "i"}).Draw(t, "opt")}
		case 13:
			return bson.JavaScript(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "js"))
		case 14:
			n := rapid.IntRange(0, 3).Draw(t, "alen")
			a := bson.A{}
			for i := 0; i < n; i++ {
				a = append(a, genValue(depth-1).Draw(t, "elem"))
			}
			return a
		default:
			n := rapid.IntRange(0, 3).Draw(t, "dlen")
			d := bson.D{}
			for i := 0; i < n; i++ {
				d = append(d, bson.E{Key: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "key"), Value: genValue(depth-1).Draw(t, "val")})
			}
			return d
		}
	})
}

func TestCompareTotalOrder(t *testing.T) {
	// Rule: MongoDB's BSON order is a total order, so sorts and index scans
	// are consistent: antisymmetric, transitive, and equality is an
	// equivalence relation.
	rapid.Check(t, func(t *rapid.T) {
		g := genValue(2)
		a, b, c := g.Draw(t, "a"), g.Draw(t, "b"), g.Draw(t, "c")
		if Compare(a, a) != 0 {
			t.Fatalf("not reflexive: %v", a)
		}
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba {
			t.Fatalf("not antisymmetric: Compare(%v,%v)=%d, reversed %d", a, b, ab, ba)
		}
		bc, ac := Compare(b, c), Compare(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 {
			t.Fatalf("not transitive: %v <= %v <= %v but Compare(a,c)=%d", a, b, c, ac)
		}
		if ab == 0 && bc == 0 && ac != 0 {
			t.Fatalf("equality not transitive: %v == %v == %v", a, b, c)
		}
	})
}

func TestCanonicalKeyMatchesEqual(t *testing.T) {
	// Rule: grouping by CanonicalKey puts together exactly the values that
	// MongoDB considers equal.
	rapid.Check(t, func(t *rapid.T) {
		g := genValue(2)
		a, b := g.Draw(t, "a"), g.Draw(t, "b")
		if Equal(a, b) != (CanonicalKey(a) == CanonicalKey(b)) {
			t.Fatalf("Equal(%v, %v) = %v but keys %q, %q", a, b, Equal(a, b), CanonicalKey(a), CanonicalKey(b))
		}
	})
	if CanonicalKey(int32(1)) != CanonicalKey(dec(t, "1.00")) || CanonicalKey(0.5) != CanonicalKey(dec(t, "0.5")) {
		t.Fatal("numeric keys differ across types")
	}
	if CanonicalKey(nil) == CanonicalKey(bson.Undefined{}) {
		t.Fatal("null and undefined must differ")
	}
}
