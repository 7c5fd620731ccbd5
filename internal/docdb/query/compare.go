package query

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Canonical type ranks, as MongoDB's canonicalizeBSONType assigns them. Values
// of different ranks compare by rank alone; values of one rank compare by
// value. All numeric types share one rank, as do string and symbol.
const (
	RankMinKey        = -1
	RankUndefined     = 0
	RankNull          = 5
	RankNumber        = 10
	RankString        = 15
	RankObject        = 20
	RankArray         = 25
	RankBinary        = 30
	RankObjectID      = 35
	RankBool          = 40
	RankDate          = 45
	RankTimestamp     = 47
	RankRegex         = 50
	RankDBPointer     = 55
	RankJavaScript    = 60
	RankCodeWithScope = 65
	RankMaxKey        = 127
)

// TypeOf returns the BSON type of v. Values decoded by the driver map to their
// own type (nil is null). Plain Go values map to the type the driver's encoder
// would write: int is int32 when it fits and int64 otherwise, float32 is a
// double, []byte is binary, time.Time is a date, bson.M and maps are
// documents, []any is an array. An unsupported Go type returns 0.
func TypeOf(v any) bson.Type {
	switch x := v.(type) {
	case nil, bson.Null:
		return bson.TypeNull
	case bson.Undefined:
		return bson.TypeUndefined
	case bson.MinKey:
		return bson.TypeMinKey
	case bson.MaxKey:
		return bson.TypeMaxKey
	case int32, int8, int16, uint8, uint16:
		return bson.TypeInt32
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return bson.TypeInt32
		}
		return bson.TypeInt64
	case int64, uint32, uint, uint64:
		return bson.TypeInt64
	case float64, float32:
		return bson.TypeDouble
	case bson.Decimal128:
		return bson.TypeDecimal128
	case string:
		return bson.TypeString
	case bson.Symbol:
		return bson.TypeSymbol
	case bson.D, bson.M, map[string]any:
		return bson.TypeEmbeddedDocument
	case bson.A, []any:
		return bson.TypeArray
	case bson.Binary, []byte:
		return bson.TypeBinary
	case bson.ObjectID:
		return bson.TypeObjectID
	case bool:
		return bson.TypeBoolean
	case bson.DateTime, time.Time:
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
	}
	return 0
}

// CanonicalRank returns the rank of v's type in MongoDB's comparison order
// (one of the Rank constants). Unsupported Go types rank with undefined.
func CanonicalRank(v any) int {
	return rankOfType(TypeOf(v))
}

func rankOfType(t bson.Type) int {
	switch t {
	case bson.TypeMinKey:
		return RankMinKey
	case bson.TypeNull:
		return RankNull
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeDecimal128:
		return RankNumber
	case bson.TypeString, bson.TypeSymbol:
		return RankString
	case bson.TypeEmbeddedDocument:
		return RankObject
	case bson.TypeArray:
		return RankArray
	case bson.TypeBinary:
		return RankBinary
	case bson.TypeObjectID:
		return RankObjectID
	case bson.TypeBoolean:
		return RankBool
	case bson.TypeDateTime:
		return RankDate
	case bson.TypeTimestamp:
		return RankTimestamp
	case bson.TypeRegex:
		return RankRegex
	case bson.TypeDBPointer:
		return RankDBPointer
	case bson.TypeJavaScript:
		return RankJavaScript
	case bson.TypeCodeWithScope:
		return RankCodeWithScope
	case bson.TypeMaxKey:
		return RankMaxKey
	}
	return RankUndefined
}

// IsNumber reports whether v is a BSON number (int32, int64, double or
// decimal128, or a Go integer or float).
func IsNumber(v any) bool { return CanonicalRank(v) == RankNumber }

// IsNullish reports whether v is null or undefined (nil, bson.Null or
// bson.Undefined).
func IsNullish(v any) bool {
	switch v.(type) {
	case nil, bson.Null, bson.Undefined:
		return true
	}
	return false
}

// AsDocument returns v as a bson.D if it is a document. A bson.M or
// map[string]any is converted with its keys sorted, so the result is
// deterministic.
func AsDocument(v any) (bson.D, bool) {
	switch x := v.(type) {
	case bson.D:
		return x, true
	case bson.M:
		return mapToD(x), true
	case map[string]any:
		return mapToD(x), true
	}
	return nil, false
}

func mapToD(m map[string]any) bson.D {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := make(bson.D, 0, len(keys))
	for _, k := range keys {
		d = append(d, bson.E{Key: k, Value: m[k]})
	}
	return d
}

// AsArray returns v as a bson.A if it is an array (bson.A or []any).
func AsArray(v any) (bson.A, bool) {
	switch x := v.(type) {
	case bson.A:
		return x, true
	case []any:
		return bson.A(x), true
	}
	return nil, false
}

// Equal reports whether a and b are equal in MongoDB's comparison order:
// numbers by value across types (1 == 1.0 == NumberLong(1) ==
// NumberDecimal("1.00")), strings and symbols by content, documents and
// arrays element by element. It ignores collation.
func Equal(a, b any) bool { return Compare(a, b) == 0 }

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b in
// MongoDB's total order for BSON values (without collation).
//
// Types compare by canonical rank first: MinKey < undefined < null < numbers
// < string, symbol < object < array < binData < ObjectId < bool < date <
// timestamp < regex < DBPointer < JavaScript < code with scope < MaxKey.
// Within a rank: numbers by exact value (NaN equals NaN and is below every
// other number; -0 equals 0); strings bytewise; objects field by field
// (canonical type, then field name, then value; a prefix sorts first); arrays
// element by element; binData by length, then subtype, then bytes; ObjectIds
// bytewise; false < true; dates as signed milliseconds; timestamps as
// unsigned (t, i); regexes by pattern then options; DBPointers by namespace
// length, namespace, then id; code by its text; code with scope by text then
// scope.
func Compare(a, b any) int {
	ta, tb := TypeOf(a), TypeOf(b)
	ra, rb := rankOfType(ta), rankOfType(tb)
	if ra != rb {
		return cmpInt(ra, rb)
	}
	switch ra {
	case RankMinKey, RankUndefined, RankNull, RankMaxKey:
		return 0
	case RankNumber:
		return compareNumbers(a, b)
	case RankString:
		return strings.Compare(stringValue(a), stringValue(b))
	case RankObject:
		da, _ := AsDocument(a)
		db, _ := AsDocument(b)
		return compareDocs(da, db)
	case RankArray:
		aa, _ := AsArray(a)
		ab, _ := AsArray(b)
		return compareArrays(aa, ab)
	case RankBinary:
		x, y := binaryValue(a), binaryValue(b)
		if c := cmpInt(len(x.Data), len(y.Data)); c != 0 {
			return c
		}
		if c := cmpInt(int(x.Subtype), int(y.Subtype)); c != 0 {
			return c
		}
		return bytes.Compare(x.Data, y.Data)
	case RankObjectID:
		x, y := a.(bson.ObjectID), b.(bson.ObjectID)
		return bytes.Compare(x[:], y[:])
	case RankBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case RankDate:
		return cmpInt64(int64(dateValue(a)), int64(dateValue(b)))
	case RankTimestamp:
		x, y := a.(bson.Timestamp), b.(bson.Timestamp)
		return x.Compare(y)
	case RankRegex:
		x, y := a.(bson.Regex), b.(bson.Regex)
		if c := strings.Compare(x.Pattern, y.Pattern); c != 0 {
			return c
		}
		return strings.Compare(x.Options, y.Options)
	case RankDBPointer:
		x, y := a.(bson.DBPointer), b.(bson.DBPointer)
		if c := cmpInt(len(x.DB), len(y.DB)); c != 0 {
			return c
		}
		if c := strings.Compare(x.DB, y.DB); c != 0 {
			return c
		}
		return bytes.Compare(x.Pointer[:], y.Pointer[:])
	case RankJavaScript:
		return strings.Compare(string(a.(bson.JavaScript)), string(b.(bson.JavaScript)))
	case RankCodeWithScope:
		x, y := a.(bson.CodeWithScope), b.(bson.CodeWithScope)
		if c := strings.Compare(string(x.Code), string(y.Code)); c != 0 {
			return c
		}
		return Compare(x.Scope, y.Scope)
	}
	return 0
}

func compareDocs(a, b bson.D) int {
	for i := 0; ; i++ {
		switch {
		case i == len(a) && i == len(b):
			return 0
		case i == len(a):
			return -1
		case i == len(b):
			return 1
		}
		if c := cmpInt(CanonicalRank(a[i].Value), CanonicalRank(b[i].Value)); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
}

func compareArrays(a, b bson.A) int {
	for i := 0; ; i++ {
		switch {
		case i == len(a) && i == len(b):
			return 0
		case i == len(a):
			return -1
		case i == len(b):
			return 1
		}
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
}

func stringValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bson.Symbol:
		return string(x)
	}
	return ""
}

func binaryValue(v any) bson.Binary {
	switch x := v.(type) {
	case bson.Binary:
		return x
	case []byte:
		return bson.Binary{Data: x}
	}
	return bson.Binary{}
}

func dateValue(v any) bson.DateTime {
	switch x := v.(type) {
	case bson.DateTime:
		return x
	case time.Time:
		return bson.NewDateTimeFromTime(x)
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// number is a BSON number reduced to one of three representations.
type number struct {
	kind byte // 'i' int64, 'f' float64, 'd' decimal128, 'u' uint64 beyond int64
	i    int64
	u    uint64
	f    float64
	d    bson.Decimal128
}

func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case int32:
		return number{kind: 'i', i: int64(x)}, true
	case int64:
		return number{kind: 'i', i: x}, true
	case int:
		return number{kind: 'i', i: int64(x)}, true
	case int8:
		return number{kind: 'i', i: int64(x)}, true
	case int16:
		return number{kind: 'i', i: int64(x)}, true
	case uint8:
		return number{kind: 'i', i: int64(x)}, true
	case uint16:
		return number{kind: 'i', i: int64(x)}, true
	case uint32:
		return number{kind: 'i', i: int64(x)}, true
	case uint:
		return uintNumber(uint64(x)), true
	case uint64:
		return uintNumber(x), true
	case float64:
		return number{kind: 'f', f: x}, true
	case float32:
		return number{kind: 'f', f: float64(x)}, true
	case bson.Decimal128:
		return number{kind: 'd', d: x}, true
	}
	return number{}, false
}

func uintNumber(u uint64) number {
	if u <= math.MaxInt64 {
		return number{kind: 'i', i: int64(u)}
	}
	return number{kind: 'u', u: u}
}

func compareNumbers(a, b any) int {
	x, _ := toNumber(a)
	y, _ := toNumber(b)
	switch {
	case x.kind == 'i' && y.kind == 'i':
		return cmpInt64(x.i, y.i)
	case x.kind == 'f' && y.kind == 'f':
		return compareFloats(x.f, y.f)
	case x.kind == 'i' && y.kind == 'f':
		return compareIntFloat(x.i, y.f)
	case x.kind == 'f' && y.kind == 'i':
		return -compareIntFloat(y.i, x.f)
	}
	return compareExact(x, y)
}

func compareFloats(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareIntFloat compares an int64 with a float64 exactly (no rounding of
// the integer to a double).
func compareIntFloat(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f)
	if c := cmpInt64(i, int64(t)); c != 0 {
		return c
	}
	switch frac := f - t; {
	case frac > 0:
		return -1
	case frac < 0:
		return 1
	}
	return 0
}

// extended is a number on the extended real line: class -2 NaN, -1 -Inf,
// 0 finite (r), +1 +Inf.
type extended struct {
	class int
	r     *big.Rat
}

func (n number) extended() extended {
	switch n.kind {
	case 'i':
		return extended{r: new(big.Rat).SetInt64(n.i)}
	case 'u':
		return extended{r: new(big.Rat).SetInt(new(big.Int).SetUint64(n.u))}
	case 'f':
		switch {
		case math.IsNaN(n.f):
			return extended{class: -2}
		case math.IsInf(n.f, 1):
			return extended{class: 1}
		case math.IsInf(n.f, -1):
			return extended{class: -1}
		}
		return extended{r: new(big.Rat).SetFloat64(n.f)}
	}
	if n.d.IsNaN() {
		return extended{class: -2}
	}
	if inf := n.d.IsInf(); inf != 0 {
		return extended{class: inf}
	}
	return extended{r: decimalRat(n.d)}
}

// decimalRat returns the exact value of a finite decimal128.
func decimalRat(d bson.Decimal128) *big.Rat {
	bi, exp, err := d.BigInt()
	if err != nil {
		return new(big.Rat)
	}
	r := new(big.Rat).SetInt(bi)
	if exp == 0 {
		return r
	}
	abs := exp
	if abs < 0 {
		abs = -abs
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs)), nil)
	pr := new(big.Rat).SetInt(p)
	if exp > 0 {
		return r.Mul(r, pr)
	}
	return r.Quo(r, pr)
}

func compareExact(x, y number) int {
	a, b := x.extended(), y.extended()
	if a.class != 0 || b.class != 0 {
		return cmpInt(a.class, b.class)
	}
	return a.r.Cmp(b.r)
}
