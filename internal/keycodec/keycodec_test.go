package keycodec_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/keycodec"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var (
	oid1 = bson.ObjectID{0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	oid2 = bson.ObjectID{0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
)

// ascending lists values in strictly increasing MongoDB order, covering
// every canonical type in canonicalizeBSONType order and the edges inside
// each.
var ascending = []any{
	bson.MinKey{},
	bson.Undefined{},
	nil,
	// Numbers.
	math.NaN(),
	math.Inf(-1),
	mustDecimal("-9.999999999999999999999999999999999E+6144"),
	-math.MaxFloat64,
	mustDecimal("-1E+20"),
	int64(math.MinInt64),
	mustDecimal("-9223372036854775807.5"),
	int64(math.MinInt64 + 1),
	int64(-1<<53 - 1),
	float64(-1 << 53),
	int32(-100),
	-99.5,
	int32(-1),
	mustDecimal("-0.1000000000000000055511151231257828"),
	-0.1,
	mustDecimal("-0.1000000000000000055511151231257827"),
	mustDecimal("-0.1"),
	-math.SmallestNonzeroFloat64,
	mustDecimal("-1E-6176"),
	int32(0),
	mustDecimal("1E-6176"),
	math.SmallestNonzeroFloat64,
	1e-300,
	mustDecimal("0.01"),
	mustDecimal("0.09999999999999999999999999999999999"),
	mustDecimal("0.1"),
	mustDecimal("0.1000000000000000055511151231257827"),
	0.1,
	mustDecimal("0.1000000000000000055511151231257828"),
	0.5,
	int32(1),
	mustDecimal("1.000000000000000000000000000000001"),
	1.0000000000000002,
	int32(99),
	int32(100),
	int64(1 << 53),
	int64(1<<53 + 1),
	float64(1<<53 + 2),
	int64(math.MaxInt64 - 1),
	int64(math.MaxInt64),
	float64(1 << 63),
	mustDecimal("9223372036854775808.5"),
	1e20,
	mustDecimal("1E+21"),
	math.MaxFloat64,
	mustDecimal("1E+6144"),
	mustDecimal("9.999999999999999999999999999999999E+6144"),
	math.Inf(1),
	// Strings and symbols, by bytes.
	"",
	"\x00",
	"\x00\x00",
	"\x01",
	bson.Symbol("a"),
	"a\x00",
	"ab",
	"b",
	"é",
	"\xff",
	// Documents: canonical type of each value, then name, then value.
	bson.D{},
	bson.D{{Key: "z", Value: nil}},
	bson.D{{Key: "b", Value: int32(1)}},
	bson.D{{Key: "b", Value: int32(1)}, {Key: "a", Value: bson.MinKey{}}},
	bson.D{{Key: "b", Value: int32(2)}},
	bson.D{{Key: "a", Value: "x"}},
	bson.D{{Key: "a", Value: bson.D{}}},
	// Arrays: element by element, a prefix first.
	bson.A{},
	bson.A{bson.MinKey{}},
	bson.A{int32(1)},
	bson.A{int32(1), int32(2)},
	bson.A{2.5},
	bson.A{"a"},
	bson.A{bson.A{}},
	// BinData: length, then subtype, then bytes.
	bson.Binary{Subtype: 0x80, Data: nil},
	bson.Binary{Subtype: 0xFF, Data: []byte{0xFF}},
	bson.Binary{Subtype: 0x00, Data: []byte{0x00, 0x00}},
	bson.Binary{Subtype: 0x00, Data: []byte{0x00, 0x01}},
	bson.Binary{Subtype: 0x04, Data: []byte{0x00, 0x00}},
	bson.Binary{Subtype: 0x02, Data: nil}, // 4 BSON bytes: the inner length
	bson.Binary{Subtype: 0x00, Data: []byte{0, 0, 0, 0, 0}},
	// ObjectId, bool, Date, Timestamp.
	bson.ObjectID{},
	oid1,
	oid2,
	false,
	true,
	bson.DateTime(math.MinInt64),
	bson.DateTime(-1),
	bson.DateTime(0),
	bson.DateTime(1700000000000),
	bson.DateTime(math.MaxInt64),
	bson.Timestamp{T: 0, I: 0},
	bson.Timestamp{T: 1, I: math.MaxUint32},
	bson.Timestamp{T: 2, I: 0},
	bson.Timestamp{T: 1 << 31, I: 0},
	// Regex: pattern, then options.
	bson.Regex{Pattern: "", Options: "i"},
	bson.Regex{Pattern: "a", Options: ""},
	bson.Regex{Pattern: "a", Options: "i"},
	bson.Regex{Pattern: "ab", Options: ""},
	// DBPointer: namespace length, namespace, ObjectId.
	bson.DBPointer{DB: "z", Pointer: oid2},
	bson.DBPointer{DB: "aa", Pointer: oid1},
	bson.DBPointer{DB: "aa", Pointer: oid2},
	bson.DBPointer{DB: "ab", Pointer: oid1},
	// JavaScript, then code with scope (code, then scope).
	bson.JavaScript(""),
	bson.JavaScript("f()"),
	bson.CodeWithScope{Code: "f()", Scope: bson.D{}},
	bson.CodeWithScope{Code: "f()", Scope: bson.D{{Key: "x", Value: int32(1)}}},
	bson.CodeWithScope{Code: "g()", Scope: nil},
	bson.MaxKey{},
}

func TestAscendingOrder(t *testing.T) {
	for i := 1; i < len(ascending); i++ {
		a, b := ascending[i-1], ascending[i]
		if c := compareValues(a, b); c >= 0 {
			t.Fatalf("test table: oracle says %#v >= %#v", a, b)
		}
		for _, desc := range []bool{false, true} {
			ea, eb := mustEncode(t, a, desc), mustEncode(t, b, desc)
			want := -1
			if desc {
				want = 1
			}
			if got := bytes.Compare(ea, eb); got != want {
				t.Errorf("desc=%v: %#v (%x) vs %#v (%x): got %d, want %d", desc, a, ea, b, eb, got, want)
			}
			checkRoundTrip(t, a, ea, desc)
		}
	}
}

func TestEqualValuesEncodeIdentically(t *testing.T) {
	groups := map[string][]any{
		"one": {int32(1), int64(1), 1, 1.0, mustDecimal("1"), mustDecimal("1.0"), mustDecimal("1.00"),
			mustDecimal("100E-2"), mustDecimal("0.001E+3")},
		"zero": {int32(0), int64(0), 0.0, math.Copysign(0, -1), mustDecimal("0"), mustDecimal("-0"),
			mustDecimal("0E+6111"), mustDecimal("-0E-6176"), bson.NewDecimal128(0x6000000000000000, 1),
			bson.NewDecimal128(0x3041FFFFFFFFFFFF, 1<<63)},
		"nan":     {math.NaN(), -math.NaN(), math.Float64frombits(0x7FF0000000000001), mustDecimal("NaN"), bson.NewDecimal128(0xFE00000000000000, 5)},
		"+inf":    {math.Inf(1), mustDecimal("Inf"), mustDecimal("Infinity")},
		"-inf":    {math.Inf(-1), mustDecimal("-Inf")},
		"2^53+1":  {int64(1<<53 + 1), mustDecimal("9007199254740993"), mustDecimal("9.007199254740993E+15")},
		"half":    {0.5, mustDecimal("0.5"), mustDecimal("5E-1"), mustDecimal("0.50000")},
		"-1e20":   {-1e20, mustDecimal("-1E+20"), mustDecimal("-100000000000000000000")},
		"maxint":  {int64(math.MaxInt64), mustDecimal("9223372036854775807")},
		"2^63":    {float64(1 << 63), mustDecimal("9223372036854775808")},
		"clamped": {mustDecimal("1E+6144"), mustDecimal("1000000000000000000000000000000000E+6111")},
		"string":  {"x", bson.Symbol("x")},
		"null":    {nil, bson.Null{}},
		"date":    {bson.DateTime(1000), time.UnixMilli(1000)},
		"array":   {bson.A{int32(1), "a"}, []any{1.0, bson.Symbol("a")}},
		"doc":     {bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: mustDecimal("1.0")}}},
		"scope":   {bson.CodeWithScope{Code: "f", Scope: nil}, bson.CodeWithScope{Code: "f", Scope: bson.D{}}},
	}
	for name, vals := range groups {
		t.Run(name, func(t *testing.T) {
			want := mustEncode(t, vals[0], false)
			for _, v := range vals[1:] {
				if got := mustEncode(t, v, false); !bytes.Equal(got, want) {
					t.Errorf("%#v encodes as %x, %#v as %x", v, got, vals[0], want)
				}
			}
		})
	}
}

// TestGoldenEncodings pins the format: index keys are stored on disk, so
// any change here needs a migration.
func TestGoldenEncodings(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{bson.MinKey{}, "05"},
		{nil, "0f"},
		{math.NaN(), "14"},
		{int32(0), "23"},
		{int32(1), "2602"},
		{int64(100), "2702"},
		{int64(-1), "20fd"},
		{12345, "28032f5a"},
		{0.5, "2564"},
		{mustDecimal("0.001"), "24fefe14"},
		{1e21, "30010b14"},
		{"a\x00b", "3c6100ff620001"},
		{bson.D{{Key: "a", Value: true}}, "466e6100016f00"},
		{bson.A{int32(1), "x"}, "5026023c78000100"},
		{bson.Binary{Subtype: 4, Data: []byte{0xAB}}, "5a010104ab"},
		{bson.DateTime(0), "788000000000000000"},
		{bson.Timestamp{T: 1, I: 2}, "820000000100000002"},
		{bson.MaxKey{}, "f0"},
	}
	for _, tt := range tests {
		got := hex.EncodeToString(mustEncode(t, tt.v, false))
		if got != tt.want {
			t.Errorf("%#v: got %s, want %s", tt.v, got, tt.want)
		}
	}
}

func TestDescendingIsInverted(t *testing.T) {
	for _, v := range ascending {
		asc, desc := mustEncode(t, v, false), mustEncode(t, v, true)
		for i := range asc {
			if desc[i] != ^asc[i] {
				t.Fatalf("%#v: descending %x is not the inverse of %x", v, desc, asc)
			}
		}
	}
}

func TestCompoundKeyMixedDirections(t *testing.T) {
	// Index {a: 1, b: -1}: a ascending, then b descending.
	keys := [][2]any{
		{int32(1), "z"},
		{int32(1), "b"},
		{int32(1), "a\x00"},
		{int32(1), "a"},
		{int32(1), ""},
		{2.0, bson.MaxKey{}},
		{2.0, nil},
		{"s", "z"},
	}
	var prev []byte
	for i, k := range keys {
		enc, err := keycodec.Encode(keycodec.Part{Value: k[0]}, keycodec.Part{Value: k[1], Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("key %v does not sort after key %v", k, keys[i-1])
		}
		vals, rest, err := keycodec.DecodeKey(enc, false, true)
		if err != nil || len(rest) != 0 || compareValues(vals[0], k[0]) != 0 || compareValues(vals[1], k[1]) != 0 {
			t.Errorf("DecodeKey(%x) = %#v, %x, %v; want %v", enc, vals, rest, err, k)
		}
		prev = enc
	}
}

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{nil, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{[]byte{0x01, 0x02}, []byte{0x01, 0x03}},
		{[]byte{0x01, 0xFF}, []byte{0x02}},
		{[]byte{0x00}, []byte{0x01}},
	}
	for _, tt := range tests {
		if got := keycodec.PrefixEnd(tt.in); !bytes.Equal(got, tt.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", tt.in, got, tt.want)
		}
	}
	// Keys that start with enc(v) lie below PrefixEnd(enc(v)); keys of any
	// larger value do not.
	for i := 0; i+1 < len(ascending); i++ {
		for _, desc := range []bool{false, true} {
			e := mustEncode(t, ascending[i], desc)
			end := keycodec.PrefixEnd(e)
			if bytes.Compare(append(bytes.Clone(e), 0xFF, 0xFF, 0xFF), end) >= 0 {
				t.Errorf("%#v with a suffix is not below PrefixEnd", ascending[i])
			}
			next := ascending[i+1]
			if desc && i > 0 {
				next = ascending[i-1]
			}
			if n := mustEncode(t, next, desc); (!desc || i > 0) && bytes.Compare(n, end) < 0 {
				t.Errorf("desc=%v: %#v sorts below PrefixEnd of %#v", desc, next, ascending[i])
			}
		}
	}
}

// bsonTypeOf gives the BSON type whose bracket holds v.
func bsonTypeOf(v any) bson.Type {
	switch v.(type) {
	case bson.MinKey:
		return bson.TypeMinKey
	case bson.Undefined:
		return bson.TypeUndefined
	case nil:
		return bson.TypeNull
	case int32, int64, float64, bson.Decimal128:
		return bson.TypeDouble
	case string, bson.Symbol:
		return bson.TypeString
	case bson.D:
		return bson.TypeEmbeddedDocument
	case bson.A:
		return bson.TypeArray
	case bson.Binary:
		return bson.TypeBinary
	case bson.ObjectID:
		return bson.TypeObjectID
	case bool:
		return bson.TypeBoolean
	case bson.DateTime:
		return bson.TypeDateTime
	case bson.Timestamp:
		return bson.TypeTimestamp
	case bson.Regex:
		return bson.TypeRegex
	case bson.DBPointer:
		return bson.TypeDBPointer
	case bson.JavaScript:
		return bson.TypeJavaScript
	case bson.CodeWithScope:
		return bson.TypeCodeWithScope
	case bson.MaxKey:
		return bson.TypeMaxKey
	}
	panic("no bson type")
}

func TestTypeBounds(t *testing.T) {
	types := []bson.Type{
		bson.TypeMinKey, bson.TypeUndefined, bson.TypeNull, bson.TypeDouble, bson.TypeInt32,
		bson.TypeInt64, bson.TypeDecimal128, bson.TypeString, bson.TypeSymbol,
		bson.TypeEmbeddedDocument, bson.TypeArray, bson.TypeBinary, bson.TypeObjectID,
		bson.TypeBoolean, bson.TypeDateTime, bson.TypeTimestamp, bson.TypeRegex,
		bson.TypeDBPointer, bson.TypeJavaScript, bson.TypeCodeWithScope, bson.TypeMaxKey,
	}
	sameBracket := func(a, b bson.Type) bool {
		norm := func(t bson.Type) bson.Type {
			switch t {
			case bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
				return bson.TypeDouble
			case bson.TypeSymbol:
				return bson.TypeString
			}
			return t
		}
		return norm(a) == norm(b)
	}
	for _, typ := range types {
		for _, desc := range []bool{false, true} {
			lo, err := keycodec.TypeLowerBound(typ, desc)
			if err != nil {
				t.Fatal(err)
			}
			hi, err := keycodec.TypeUpperBound(typ, desc)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range ascending {
				// A key with v as its part, followed by a record id.
				k := append(mustEncode(t, v, desc), 0x00, 0xFF)
				in := bytes.Compare(lo, k) <= 0 && bytes.Compare(k, hi) < 0
				if want := sameBracket(bsonTypeOf(v), typ); in != want {
					t.Errorf("type %v desc=%v: %#v in [%x, %x) is %v, want %v", typ, desc, v, lo, hi, in, want)
				}
			}
		}
	}
	if _, err := keycodec.TypeLowerBound(bson.Type(0x42), false); !errors.Is(err, keycodec.ErrUnsupportedType) {
		t.Errorf("unknown type: got %v", err)
	}
	if _, err := keycodec.TypeUpperBound(bson.Type(0), true); !errors.Is(err, keycodec.ErrUnsupportedType) {
		t.Errorf("unknown type: got %v", err)
	}
}

// TestTTLScanRecipe checks the scan a TTL sweep makes: every Date at or
// before the cutoff, and nothing else, in an index of (value, record id).
func TestTTLScanRecipe(t *testing.T) {
	cutoff := bson.DateTime(1_700_000_000_000)
	values := []any{
		bson.DateTime(math.MinInt64), bson.DateTime(-5), cutoff - 1, cutoff, cutoff + 1,
		bson.DateTime(math.MaxInt64), int64(cutoff), "2023", nil, bson.Timestamp{T: 1}, true,
		bson.A{cutoff - 1}, bson.D{{Key: "d", Value: cutoff}},
	}
	lo, err := keycodec.TypeLowerBound(bson.TypeDateTime, false)
	if err != nil {
		t.Fatal(err)
	}
	hi := keycodec.PrefixEnd(mustEncode(t, cutoff, false))
	for i, v := range values {
		k, err := keycodec.Encode(keycodec.Part{Value: v}, keycodec.Part{Value: oid1})
		if err != nil {
			t.Fatal(err)
		}
		in := bytes.Compare(lo, k) <= 0 && bytes.Compare(k, hi) < 0
		d, isDate := v.(bson.DateTime)
		if want := isDate && d <= cutoff; in != want {
			t.Errorf("value %d %#v: in scan %v, want %v", i, v, in, want)
		}
	}
}

func TestUnsupportedTypes(t *testing.T) {
	for _, v := range []any{
		bson.M{"a": 1}, uint32(1), float32(1), struct{}{}, map[string]any{}, []string{"a"},
		bson.D{{Key: "a", Value: uint8(1)}}, bson.A{int32(1), bson.M{}},
		bson.CodeWithScope{Code: "f", Scope: bson.M{}}, bson.RawValue{},
	} {
		dst := []byte{1, 2, 3}
		out, err := keycodec.AppendValue(dst, v, false)
		if !errors.Is(err, keycodec.ErrUnsupportedType) {
			t.Errorf("%#v: got error %v, want ErrUnsupportedType", v, err)
		}
		if !bytes.Equal(out, dst) {
			t.Errorf("%#v: dst changed to %x on error", v, out)
		}
	}
	if _, err := keycodec.Encode(keycodec.Part{Value: 1}, keycodec.Part{Value: bson.M{}}); !errors.Is(err, keycodec.ErrUnsupportedType) {
		t.Errorf("Encode with a bson.M part: %v", err)
	}
}

func TestTooDeep(t *testing.T) {
	var v any = int32(1)
	for range keycodec.MaxDepth + 1 {
		v = bson.A{v}
	}
	if _, err := keycodec.AppendValue(nil, v, false); !errors.Is(err, keycodec.ErrTooDeep) {
		t.Errorf("deep array: %v", err)
	}
	// A cyclic value must not recurse forever.
	cyc := bson.A{nil}
	cyc[0] = cyc
	if _, err := keycodec.AppendValue(nil, cyc, false); !errors.Is(err, keycodec.ErrTooDeep) {
		t.Errorf("cyclic array: %v", err)
	}
	deep := bytes.Repeat([]byte{0x50}, keycodec.MaxDepth+1)
	if _, _, err := keycodec.DecodeValue(deep, false); !errors.Is(err, keycodec.ErrTooDeep) {
		t.Errorf("deep encoded array: %v", err)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	tests := map[string]string{
		"empty":                      "",
		"unknown tag":                "01",
		"tag 0xff":                   "ff",
		"unterminated string":        "3c61",
		"bad escape":                 "3c610002",
		"number without mantissa":    "26",
		"zero first pair":            "260102",
		"zero last pair":             "260300",
		"mantissa byte over 199":     "26c8",
		"large tag small exp":        "30010502",
		"small tag zero exp":         "24ff02",
		"exp not minimal":            "3002000b02",
		"neither double nor decimal": "2515" + strings.Repeat("01", 18) + "02",
		"decimal out of range":       "3002ffff02",
		"class mismatch":             "463c6100012602" + "00",
		"doc without end":            "46",
		"short objectid":             "6400",
		"short date":                 "7800",
		"binary short":               "5a0205",
		"old binary bad inner":       "5a010102aa",
		"scope not a document":       "aa66000150",
		"dbpointer short":            "9601026161",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			b, _ := hex.DecodeString(in)
			for _, desc := range []bool{false, true} {
				src := bytes.Clone(b)
				if desc {
					for i := range src {
						src[i] = ^src[i]
					}
				}
				if v, _, err := keycodec.DecodeValue(src, desc); !errors.Is(err, keycodec.ErrCorrupt) {
					t.Errorf("desc=%v: DecodeValue(%x) = %#v, %v; want ErrCorrupt", desc, src, v, err)
				}
			}
		})
	}
}

func TestDecodeRest(t *testing.T) {
	enc, err := keycodec.Encode(keycodec.Part{Value: "k"}, keycodec.Part{Value: 2.5, Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	enc = append(enc, oid1[:]...)
	v, rest, err := keycodec.DecodeValue(enc, false)
	if err != nil || v != "k" {
		t.Fatalf("first part: %#v, %v", v, err)
	}
	v, rest, err = keycodec.DecodeValue(rest, true)
	if err != nil || v != 2.5 {
		t.Fatalf("second part: %#v, %v", v, err)
	}
	if !bytes.Equal(rest, oid1[:]) {
		t.Fatalf("rest %x, want the record id", rest)
	}
}

func TestDecodedNumberTypes(t *testing.T) {
	tests := []struct {
		in   any
		want any
	}{
		{int32(7), int64(7)},
		{7.0, int64(7)},
		{mustDecimal("7.000"), int64(7)},
		{math.Copysign(0, -1), int64(0)},
		{float64(1 << 63), float64(1 << 63)},
		{mustDecimal("0.25"), 0.25},
		{mustDecimal("0.1"), mustDecimal("0.1")},
		{mustDecimal("-9223372036854775809"), mustDecimal("-9223372036854775809")},
		{int64(math.MinInt64), int64(math.MinInt64)},
		{mustDecimal("1E+6144"), mustDecimal("1000000000000000000000000000000000E+6111")},
		{mustDecimal("-Inf"), math.Inf(-1)},
	}
	for _, tt := range tests {
		got, _, err := keycodec.DecodeValue(mustEncode(t, tt.in, false), false)
		if err != nil {
			t.Fatalf("%v: %v", tt.in, err)
		}
		if got != tt.want {
			t.Errorf("%#v decoded as %#v (%T), want %#v (%T)", tt.in, got, got, tt.want, tt.want)
		}
	}
	got, _, err := keycodec.DecodeValue(mustEncode(t, mustDecimal("NaN"), true), true)
	if f, ok := got.(float64); err != nil || !ok || !math.IsNaN(f) {
		t.Errorf("NaN decoded as %#v, %v", got, err)
	}
}

func TestInvalidRawBSON(t *testing.T) {
	tests := map[string]bson.RawValue{
		"string without NUL":   {Type: bson.TypeString, Value: []byte{2, 0, 0, 0, 'a', 'b'}},
		"string length":        {Type: bson.TypeString, Value: []byte{9, 0, 0, 0, 'a', 0}},
		"negative length":      {Type: bson.TypeString, Value: []byte{0xFF, 0xFF, 0xFF, 0xFF, 0}},
		"trailing bytes":       {Type: bson.TypeInt32, Value: []byte{1, 0, 0, 0, 0}},
		"short int64":          {Type: bson.TypeInt64, Value: []byte{1}},
		"bool 2":               {Type: bson.TypeBoolean, Value: []byte{2}},
		"doc length":           {Type: bson.TypeEmbeddedDocument, Value: []byte{6, 0, 0, 0, 0}},
		"doc not terminated":   {Type: bson.TypeEmbeddedDocument, Value: []byte{5, 0, 0, 0, 1}},
		"doc bad element":      {Type: bson.TypeEmbeddedDocument, Value: []byte{8, 0, 0, 0, 0x10, 'a', 0, 0}},
		"binary length":        {Type: bson.TypeBinary, Value: []byte{3, 0, 0, 0, 0, 1}},
		"old binary inner":     {Type: bson.TypeBinary, Value: []byte{5, 0, 0, 0, 2, 9, 0, 0, 0, 1}},
		"regex unterminated":   {Type: bson.TypeRegex, Value: []byte{'a', 0, 'i'}},
		"dbpointer short":      {Type: bson.TypeDBPointer, Value: []byte{2, 0, 0, 0, 'a', 0, 1}},
		"code with scope size": {Type: bson.TypeCodeWithScope, Value: []byte{14, 0, 0, 0, 1, 0, 0, 0, 0, 5, 0, 0, 0, 0}[:13]},
	}
	for name, rv := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := keycodec.AppendValue(nil, rv, false); !errors.Is(err, keycodec.ErrInvalidBSON) {
				t.Errorf("got %v, want ErrInvalidBSON", err)
			}
		})
	}
	if _, err := keycodec.AppendValue(nil, bson.RawValue{Type: bson.Type(0x42), Value: nil}, false); !errors.Is(err, keycodec.ErrUnsupportedType) {
		t.Errorf("unknown raw type: %v", err)
	}
}
