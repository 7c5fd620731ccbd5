package aggregate

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// exprCase is one expression evaluated against doc. A non-zero code means
// compiling or evaluating must fail with that MongoDB code (and msg, when
// set, is the exact message).
type exprCase struct {
	name string // the MongoDB rule the case checks
	expr any
	doc  bson.D
	want any
	code mongoerr.Code
	msg  string
}

var testNow = time.Date(2026, 11, 5, 10, 30, 0, 0, time.UTC)

func runExprCases(t *testing.T, cases []exprCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalExpr(c.expr, c.doc)
			if c.code != 0 {
				e, ok := mongoerr.As(err)
				if !ok {
					t.Fatalf("got %v, %v; want error code %d", got, err, c.code)
				}
				if e.Code != c.code || (c.msg != "" && e.Message != c.msg) {
					t.Fatalf("got error %d %q; want %d %q", e.Code, e.Message, c.code, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !sameValue(got, c.want) {
				t.Fatalf("got %s (%T); want %s (%T)", FormatValue(got), got, FormatValue(c.want), c.want)
			}
		})
	}
}

func evalExpr(expr any, doc bson.D) (any, error) {
	e, err := Compile(expr)
	if err != nil {
		return nil, err
	}
	return e.Eval(NewVars(testNow), doc)
}

// sameValue compares values including their BSON types (1 and 1.0 differ),
// which query.Equal deliberately does not.
func sameValue(a, b any) bool {
	if IsMissing(a) || IsMissing(b) {
		return IsMissing(a) && IsMissing(b)
	}
	if TypeName(a) != TypeName(b) {
		return false
	}
	if fa, ok := a.(float64); ok && math.IsNaN(fa) {
		fb, _ := b.(float64)
		return math.IsNaN(fb)
	}
	switch x := a.(type) {
	case bson.D:
		y := b.(bson.D)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !sameValue(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y := b.(bson.A)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return query.Compare(a, b) == 0
}

func dec(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}

func date(s string) bson.DateTime {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return bson.NewDateTimeFromTime(t)
}

var sample = bson.D{
	{Key: "_id", Value: int32(1)},
	{Key: "a", Value: int32(5)},
	{Key: "b", Value: bson.D{{Key: "c", Value: "x"}, {Key: "d", Value: bson.A{int32(1), int32(2)}}}},
	{Key: "arr", Value: bson.A{bson.D{{Key: "v", Value: int32(1)}}, int32(7), bson.D{{Key: "w", Value: int32(2)}}, bson.D{{Key: "v", Value: int32(3)}}}},
	{Key: "s", Value: "Héllo World"},
	{Key: "n", Value: nil},
	{Key: "when", Value: date("2026-03-15T13:45:30.250Z")},
}

func TestExprPathsAndVariables(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "field path reads a top-level field", expr: "$a", doc: sample, want: int32(5)},
		{name: "dotted path descends into documents", expr: "$b.c", doc: sample, want: "x"},
		{name: "path through an array maps over document elements and skips the rest", expr: "$arr.v", doc: sample, want: bson.A{int32(1), int32(3)}},
		{name: "absent field is missing", expr: "$zz", doc: sample, want: Missing},
		{name: "path through a scalar is missing", expr: "$a.b", doc: sample, want: Missing},
		{name: "$$ROOT is the whole document", expr: "$$ROOT.b.c", doc: sample, want: "x"},
		{name: "$$CURRENT is the current document", expr: "$$CURRENT.a", doc: sample, want: int32(5)},
		{name: "$$NOW is the injected clock", expr: "$$NOW", doc: sample, want: bson.NewDateTimeFromTime(testNow)},
		{name: "$$REMOVE is missing", expr: "$$REMOVE", doc: sample, want: Missing},
		{name: "undefined variable is error 17276", expr: "$$foo", code: 17276, msg: "Use of undefined variable: foo"},
		{name: "'$' alone is error 16872", expr: "$", code: 16872},
		{name: "empty path component is error 15998", expr: "$a..b", code: 15998},
		{name: "$literal keeps a $-string", expr: bson.D{{Key: "$literal", Value: "$a"}}, want: "$a"},
		{name: "object expression evaluates fields and drops missing ones", expr: bson.D{{Key: "x", Value: "$a"}, {Key: "y", Value: "$zz"}}, doc: sample, want: bson.D{{Key: "x", Value: int32(5)}}},
		{name: "array expression turns missing into null", expr: bson.A{"$a", "$zz"}, doc: sample, want: bson.A{int32(5), nil}},
		{name: "unknown operator is error 168", expr: bson.D{{Key: "$foo", Value: 1}}, code: 168, msg: "Unrecognized expression '$foo'"},
		{name: "operator object with two fields is error 15983", expr: bson.D{{Key: "$add", Value: bson.A{}}, {Key: "b", Value: 1}}, code: 15983},
		{name: "$let binds variables for in", expr: bson.D{{Key: "$let", Value: bson.D{{Key: "vars", Value: bson.D{{Key: "x", Value: "$a"}}}, {Key: "in", Value: bson.D{{Key: "$multiply", Value: bson.A{"$$x", int32(2)}}}}}}}, doc: sample, want: int32(10)},
		{name: "$let variable names must start lowercase (16867)", expr: bson.D{{Key: "$let", Value: bson.D{{Key: "vars", Value: bson.D{{Key: "X", Value: 1}}}, {Key: "in", Value: 1}}}}, code: 16867},
	})
}

func TestExprComparisonAndLogic(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$eq compares numbers across types", expr: bson.D{{Key: "$eq", Value: bson.A{int32(1), 1.0}}}, want: true},
		{name: "$eq missing vs null is false", expr: bson.D{{Key: "$eq", Value: bson.A{"$zz", nil}}}, doc: sample, want: false},
		{name: "$gt uses the BSON type order (string > number)", expr: bson.D{{Key: "$gt", Value: bson.A{"a", int32(5)}}}, want: true},
		{name: "$lt null below numbers", expr: bson.D{{Key: "$lt", Value: bson.A{nil, int32(0)}}}, want: true},
		{name: "$cmp returns -1/0/1 as int", expr: bson.D{{Key: "$cmp", Value: bson.A{int32(1), int32(2)}}}, want: int32(-1)},
		{name: "$ne of arrays", expr: bson.D{{Key: "$ne", Value: bson.A{bson.A{int32(1)}, bson.A{int32(1)}}}}, want: false},
		{name: "comparison arity is error 16020", expr: bson.D{{Key: "$eq", Value: bson.A{int32(1)}}}, code: 16020, msg: "Expression $eq takes exactly 2 arguments. 1 were passed in."},
		{name: "$and of truthy values (0 and null are false)", expr: bson.D{{Key: "$and", Value: bson.A{int32(1), "x", bson.A{}}}}, want: true},
		{name: "$and with zero is false", expr: bson.D{{Key: "$and", Value: bson.A{int32(1), int32(0)}}}, want: false},
		{name: "$or with null and missing is false", expr: bson.D{{Key: "$or", Value: bson.A{nil, "$zz"}}}, doc: sample, want: false},
		{name: "$and with no operands is true", expr: bson.D{{Key: "$and", Value: bson.A{}}}, want: true},
		{name: "$not negates truthiness", expr: bson.D{{Key: "$not", Value: bson.A{int32(0)}}}, want: true},
		{name: "$cond array form", expr: bson.D{{Key: "$cond", Value: bson.A{bson.D{{Key: "$gt", Value: bson.A{"$a", int32(3)}}}, "big", "small"}}}, doc: sample, want: "big"},
		{name: "$cond document form", expr: bson.D{{Key: "$cond", Value: bson.D{{Key: "if", Value: false}, {Key: "then", Value: 1}, {Key: "else", Value: 2}}}}, want: 2},
		{name: "$cond without else is error 17082", expr: bson.D{{Key: "$cond", Value: bson.D{{Key: "if", Value: false}, {Key: "then", Value: 1}}}}, code: 17082},
		{name: "$ifNull returns the first non-null", expr: bson.D{{Key: "$ifNull", Value: bson.A{"$n", "$zz", "def"}}}, doc: sample, want: "def"},
		{name: "$ifNull keeps a non-null value", expr: bson.D{{Key: "$ifNull", Value: bson.A{"$a", "def"}}}, doc: sample, want: int32(5)},
		{name: "$switch picks the first true branch", expr: bson.D{{Key: "$switch", Value: bson.D{{Key: "branches", Value: bson.A{
			bson.D{{Key: "case", Value: bson.D{{Key: "$lt", Value: bson.A{"$a", int32(3)}}}}, {Key: "then", Value: "low"}},
			bson.D{{Key: "case", Value: bson.D{{Key: "$lt", Value: bson.A{"$a", int32(10)}}}}, {Key: "then", Value: "mid"}},
		}}, {Key: "default", Value: "high"}}}}, doc: sample, want: "mid"},
		{name: "$switch without a match or default is error 40066", expr: bson.D{{Key: "$switch", Value: bson.D{{Key: "branches", Value: bson.A{
			bson.D{{Key: "case", Value: false}, {Key: "then", Value: 1}}}}}}}, code: 40066},
	})
}

func TestExprArithmetic(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$add of ints stays int", expr: bson.D{{Key: "$add", Value: bson.A{int32(1), int32(2)}}}, want: int32(3)},
		{name: "$add int overflow widens to long", expr: bson.D{{Key: "$add", Value: bson.A{int32(math.MaxInt32), int32(1)}}}, want: int64(math.MaxInt32) + 1},
		{name: "$add long overflow widens to double", expr: bson.D{{Key: "$add", Value: bson.A{int64(math.MaxInt64), int64(1)}}}, want: float64(math.MaxInt64) + 1},
		{name: "$add with a double gives a double", expr: bson.D{{Key: "$add", Value: bson.A{int32(1), 0.5}}}, want: 1.5},
		{name: "$add with a decimal gives a decimal", expr: bson.D{{Key: "$add", Value: bson.A{dec("1.1"), int32(2)}}}, want: dec("3.1")},
		{name: "$add date and number gives a date", expr: bson.D{{Key: "$add", Value: bson.A{"$when", int64(1000)}}}, doc: sample, want: date("2026-03-15T13:45:31.250Z")},
		{name: "$add with null is null", expr: bson.D{{Key: "$add", Value: bson.A{int32(1), nil}}}, want: nil},
		{name: "$add two dates is error 16612", expr: bson.D{{Key: "$add", Value: bson.A{"$when", "$when"}}}, doc: sample, code: 16612},
		{name: "$add of a string is error 16554", expr: bson.D{{Key: "$add", Value: bson.A{int32(1), "x"}}}, code: 16554, msg: "$add only supports numeric or date types, not string"},
		{name: "$subtract dates gives milliseconds", expr: bson.D{{Key: "$subtract", Value: bson.A{"$when", date("2026-03-15T13:45:30Z")}}}, doc: sample, want: int64(250)},
		{name: "$subtract number from date gives a date", expr: bson.D{{Key: "$subtract", Value: bson.A{"$when", int32(250)}}}, doc: sample, want: date("2026-03-15T13:45:30Z")},
		{name: "$subtract a date from a number is error 16556", expr: bson.D{{Key: "$subtract", Value: bson.A{int32(1), "$when"}}}, doc: sample, code: 16556, msg: "can't $subtract date from int"},
		{name: "$multiply ints", expr: bson.D{{Key: "$multiply", Value: bson.A{int32(3), int32(4), int64(2)}}}, want: int64(24)},
		{name: "$multiply of a string is error 16555", expr: bson.D{{Key: "$multiply", Value: bson.A{int32(1), "x"}}}, code: 16555},
		{name: "$divide always gives a double", expr: bson.D{{Key: "$divide", Value: bson.A{int32(6), int32(3)}}}, want: 2.0},
		{name: "$divide decimals stays decimal", expr: bson.D{{Key: "$divide", Value: bson.A{dec("1"), dec("4")}}}, want: dec("0.25")},
		{name: "$divide by zero is error 2", expr: bson.D{{Key: "$divide", Value: bson.A{int32(1), int32(0)}}}, code: 2, msg: "can't $divide by zero"},
		{name: "$divide of strings is TypeMismatch", expr: bson.D{{Key: "$divide", Value: bson.A{"a", int32(1)}}}, code: 14, msg: "$divide only supports numeric types, not string and int"},
		{name: "$mod keeps the dividend's sign", expr: bson.D{{Key: "$mod", Value: bson.A{int32(-7), int32(3)}}}, want: int32(-1)},
		{name: "$mod double", expr: bson.D{{Key: "$mod", Value: bson.A{7.5, int32(2)}}}, want: 1.5},
		{name: "$mod by zero is error 16610", expr: bson.D{{Key: "$mod", Value: bson.A{int32(1), int32(0)}}}, code: 16610},
		{name: "$abs of int", expr: bson.D{{Key: "$abs", Value: int32(-3)}}, want: int32(3)},
		{name: "$ceil of double", expr: bson.D{{Key: "$ceil", Value: 1.2}}, want: 2.0},
		{name: "$floor of negative double", expr: bson.D{{Key: "$floor", Value: -1.2}}, want: -2.0},
		{name: "$round half to even", expr: bson.D{{Key: "$round", Value: bson.A{2.5, int32(0)}}}, want: 2.0},
		{name: "$round to places", expr: bson.D{{Key: "$round", Value: bson.A{1.2345, int32(2)}}}, want: 1.23},
		{name: "$round int with negative places", expr: bson.D{{Key: "$round", Value: bson.A{int32(1250), int32(-2)}}}, want: int32(1200)},
		{name: "$trunc toward zero", expr: bson.D{{Key: "$trunc", Value: bson.A{-1.99, int32(1)}}}, want: -1.9},
		{name: "$round of decimal", expr: bson.D{{Key: "$round", Value: bson.A{dec("1.255"), int32(2)}}}, want: dec("1.26")},
		{name: "$pow of ints stays int", expr: bson.D{{Key: "$pow", Value: bson.A{int32(2), int32(10)}}}, want: int32(1024)},
		{name: "$sqrt", expr: bson.D{{Key: "$sqrt", Value: int32(16)}}, want: 4.0},
	})
}

func TestExprStrings(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$concat strings", expr: bson.D{{Key: "$concat", Value: bson.A{"a", "-", "b"}}}, want: "a-b"},
		{name: "$concat with null is null", expr: bson.D{{Key: "$concat", Value: bson.A{"a", nil}}}, want: nil},
		{name: "$concat of int is error 16702", expr: bson.D{{Key: "$concat", Value: bson.A{"a", int32(1)}}}, code: 16702, msg: "$concat only supports strings, not int"},
		{name: "$substrBytes counts bytes", expr: bson.D{{Key: "$substrBytes", Value: bson.A{"abcdef", int32(1), int32(3)}}}, want: "bcd"},
		{name: "$substrBytes negative length takes the rest", expr: bson.D{{Key: "$substr", Value: bson.A{"abcdef", int32(2), int32(-1)}}}, want: "cdef"},
		{name: "$substrBytes inside a UTF-8 character is error 28656", expr: bson.D{{Key: "$substrBytes", Value: bson.A{"$s", int32(2), int32(2)}}}, doc: sample, code: 28656},
		{name: "$substrCP counts code points", expr: bson.D{{Key: "$substrCP", Value: bson.A{"$s", int32(1), int32(4)}}}, doc: sample, want: "éllo"},
		{name: "$toLower changes ASCII letters", expr: bson.D{{Key: "$toLower", Value: "ABC"}}, want: "abc"},
		{name: "$toUpper of null is empty string", expr: bson.D{{Key: "$toUpper", Value: nil}}, want: ""},
		{name: "$toUpper of a number renders it", expr: bson.D{{Key: "$toUpper", Value: int32(12)}}, want: "12"},
		{name: "$strLenCP counts code points", expr: bson.D{{Key: "$strLenCP", Value: "$s"}}, doc: sample, want: int32(11)},
		{name: "$strLenBytes counts bytes", expr: bson.D{{Key: "$strLenBytes", Value: "$s"}}, doc: sample, want: int32(12)},
		{name: "$strLenCP of int is error 34471", expr: bson.D{{Key: "$strLenCP", Value: int32(1)}}, code: 34471},
		{name: "$split", expr: bson.D{{Key: "$split", Value: bson.A{"a,b,,c", ","}}}, want: bson.A{"a", "b", "", "c"}},
		{name: "$split empty separator is error 40087", expr: bson.D{{Key: "$split", Value: bson.A{"a", ""}}}, code: 40087},
		{name: "$trim whitespace", expr: bson.D{{Key: "$trim", Value: bson.D{{Key: "input", Value: "  x y \n"}}}}, want: "x y"},
		{name: "$ltrim chars", expr: bson.D{{Key: "$ltrim", Value: bson.D{{Key: "input", Value: "xxaxx"}, {Key: "chars", Value: "x"}}}}, want: "axx"},
		{name: "$indexOfCP", expr: bson.D{{Key: "$indexOfCP", Value: bson.A{"$s", "World"}}}, doc: sample, want: int32(6)},
		{name: "$strcasecmp", expr: bson.D{{Key: "$strcasecmp", Value: bson.A{"abc", "ABD"}}}, want: int32(-1)},
	})
}

func TestExprArrays(t *testing.T) {
	nums := bson.A{int32(1), int32(2), int32(3), int32(4)}
	runExprCases(t, []exprCase{
		{name: "$size", expr: bson.D{{Key: "$size", Value: "$b.d"}}, doc: sample, want: int32(2)},
		{name: "$size of a non-array is error 17124", expr: bson.D{{Key: "$size", Value: "$a"}}, doc: sample, code: 17124, msg: "The argument to $size must be an array. Type of the argument was: int"},
		{name: "$arrayElemAt negative index counts from the end", expr: bson.D{{Key: "$arrayElemAt", Value: bson.A{nums, int32(-1)}}}, want: int32(4)},
		{name: "$arrayElemAt out of range is missing", expr: bson.D{{Key: "$arrayElemAt", Value: bson.A{nums, int32(9)}}}, want: Missing},
		{name: "$arrayElemAt non-array is error 28689", expr: bson.D{{Key: "$arrayElemAt", Value: bson.A{int32(1), int32(0)}}}, code: 28689},
		{name: "$arrayElemAt fractional index is error 28691", expr: bson.D{{Key: "$arrayElemAt", Value: bson.A{nums, 1.5}}}, code: 28691},
		{name: "$first", expr: bson.D{{Key: "$first", Value: bson.A{nums}}}, want: int32(1)},
		{name: "$last", expr: bson.D{{Key: "$last", Value: bson.A{nums}}}, want: int32(4)},
		{name: "$first of empty array is missing", expr: bson.D{{Key: "$first", Value: bson.A{bson.A{}}}}, want: Missing},
		{name: "$in finds numerically equal", expr: bson.D{{Key: "$in", Value: bson.A{2.0, nums}}}, want: true},
		{name: "$in requires an array (40081)", expr: bson.D{{Key: "$in", Value: bson.A{1, "x"}}}, code: 40081},
		{name: "$isArray", expr: bson.D{{Key: "$isArray", Value: bson.A{"$b.d"}}}, doc: sample, want: true},
		{name: "$concatArrays", expr: bson.D{{Key: "$concatArrays", Value: bson.A{bson.A{int32(1)}, bson.A{"a"}}}}, want: bson.A{int32(1), "a"}},
		{name: "$concatArrays non-array is error 28664", expr: bson.D{{Key: "$concatArrays", Value: bson.A{bson.A{}, int32(1)}}}, code: 28664},
		{name: "$filter keeps elements whose cond is true", expr: bson.D{{Key: "$filter", Value: bson.D{{Key: "input", Value: nums}, {Key: "as", Value: "n"}, {Key: "cond", Value: bson.D{{Key: "$gt", Value: bson.A{"$$n", int32(2)}}}}}}}, want: bson.A{int32(3), int32(4)}},
		{name: "$filter limit", expr: bson.D{{Key: "$filter", Value: bson.D{{Key: "input", Value: nums}, {Key: "cond", Value: true}, {Key: "limit", Value: int32(1)}}}}, want: bson.A{int32(1)}},
		{name: "$map with default $$this", expr: bson.D{{Key: "$map", Value: bson.D{{Key: "input", Value: nums}, {Key: "in", Value: bson.D{{Key: "$multiply", Value: bson.A{"$$this", int32(10)}}}}}}}, want: bson.A{int32(10), int32(20), int32(30), int32(40)}},
		{name: "$reduce sums with $$value and $$this", expr: bson.D{{Key: "$reduce", Value: bson.D{{Key: "input", Value: nums}, {Key: "initialValue", Value: int32(0)}, {Key: "in", Value: bson.D{{Key: "$add", Value: bson.A{"$$value", "$$this"}}}}}}}, want: int32(10)},
		{name: "$slice first n", expr: bson.D{{Key: "$slice", Value: bson.A{nums, int32(2)}}}, want: bson.A{int32(1), int32(2)}},
		{name: "$slice last n", expr: bson.D{{Key: "$slice", Value: bson.A{nums, int32(-2)}}}, want: bson.A{int32(3), int32(4)}},
		{name: "$slice position and n", expr: bson.D{{Key: "$slice", Value: bson.A{nums, int32(1), int32(2)}}}, want: bson.A{int32(2), int32(3)}},
		{name: "$indexOfArray", expr: bson.D{{Key: "$indexOfArray", Value: bson.A{nums, int32(3)}}}, want: int32(2)},
		{name: "$range with step", expr: bson.D{{Key: "$range", Value: bson.A{int32(0), int32(10), int32(4)}}}, want: bson.A{int32(0), int32(4), int32(8)}},
		{name: "$range step zero is error 34449", expr: bson.D{{Key: "$range", Value: bson.A{int32(0), int32(10), int32(0)}}}, code: 34449},
		{name: "$reverseArray", expr: bson.D{{Key: "$reverseArray", Value: bson.A{bson.A{int32(1), int32(2)}}}}, want: bson.A{int32(2), int32(1)}},
		{name: "$setUnion deduplicates", expr: bson.D{{Key: "$setUnion", Value: bson.A{bson.A{int32(1), int32(2)}, bson.A{int32(2), int32(3)}}}}, want: bson.A{int32(1), int32(2), int32(3)}},
		{name: "$sum over an array operand", expr: bson.D{{Key: "$sum", Value: "$b.d"}}, doc: sample, want: int32(3)},
		{name: "$sum ignores non-numbers", expr: bson.D{{Key: "$sum", Value: bson.A{int32(1), "x", 2.5}}}, want: 3.5},
		{name: "$avg of an array", expr: bson.D{{Key: "$avg", Value: bson.A{nums}}}, want: 2.5},
		{name: "$avg of nothing numeric is null", expr: bson.D{{Key: "$avg", Value: bson.A{"a"}}}, want: nil},
		{name: "$max over operands", expr: bson.D{{Key: "$max", Value: bson.A{int32(1), int32(9), nil}}}, want: int32(9)},
		{name: "$min over array", expr: bson.D{{Key: "$min", Value: bson.A{nums}}}, want: int32(1)},
	})
}

func TestExprObjectsAndTypes(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$mergeObjects later fields win and keep first position", expr: bson.D{{Key: "$mergeObjects", Value: bson.A{bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}, nil, bson.D{{Key: "a", Value: 3}}}}}, want: bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 2}}},
		{name: "$mergeObjects non-object is error 40400", expr: bson.D{{Key: "$mergeObjects", Value: bson.A{int32(1)}}}, code: 40400},
		{name: "$objectToArray", expr: bson.D{{Key: "$objectToArray", Value: bson.D{{Key: "a", Value: int32(1)}}}}, want: bson.A{bson.D{{Key: "k", Value: "a"}, {Key: "v", Value: int32(1)}}}},
		{name: "$arrayToObject from pairs", expr: bson.D{{Key: "$arrayToObject", Value: bson.A{bson.A{bson.A{"a", int32(1)}, bson.A{"b", int32(2)}}}}}, want: bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(2)}}},
		{name: "$arrayToObject from k/v documents", expr: bson.D{{Key: "$arrayToObject", Value: bson.A{bson.A{bson.D{{Key: "k", Value: "a"}, {Key: "v", Value: int32(1)}}}}}}, want: bson.D{{Key: "a", Value: int32(1)}}},
		{name: "$arrayToObject bad pair size is error 40397", expr: bson.D{{Key: "$arrayToObject", Value: bson.A{bson.A{bson.A{"a"}}}}}, code: 40397},
		{name: "$type of missing", expr: bson.D{{Key: "$type", Value: "$zz"}}, doc: sample, want: "missing"},
		{name: "$type of int", expr: bson.D{{Key: "$type", Value: "$a"}}, doc: sample, want: "int"},
		{name: "$toString of a double", expr: bson.D{{Key: "$toString", Value: 2.5}}, want: "2.5"},
		{name: "$toString of a date is ISO", expr: bson.D{{Key: "$toString", Value: "$when"}}, doc: sample, want: "2026-03-15T13:45:30.250Z"},
		{name: "$toInt truncates a double", expr: bson.D{{Key: "$toInt", Value: 2.9}}, want: int32(2)},
		{name: "$toInt of a string", expr: bson.D{{Key: "$toInt", Value: "42"}}, want: int32(42)},
		{name: "$toInt of a bad string is ConversionFailure 241", expr: bson.D{{Key: "$toInt", Value: "4x"}}, code: 241},
		{name: "$toInt overflow is ConversionFailure 241", expr: bson.D{{Key: "$toInt", Value: int64(1) << 40}}, code: 241},
		{name: "$toLong of a date is its milliseconds", expr: bson.D{{Key: "$toLong", Value: date("1970-01-01T00:00:01Z")}}, want: int64(1000)},
		{name: "$toDouble of true", expr: bson.D{{Key: "$toDouble", Value: true}}, want: 1.0},
		{name: "$toDecimal of an int", expr: bson.D{{Key: "$toDecimal", Value: int32(3)}}, want: dec("3")},
		{name: "$toBool of zero", expr: bson.D{{Key: "$toBool", Value: int32(0)}}, want: false},
		{name: "$toBool of a string is true", expr: bson.D{{Key: "$toBool", Value: ""}}, want: true},
		{name: "$toDate of a string", expr: bson.D{{Key: "$toDate", Value: "2026-03-15T13:45:30.250Z"}}, want: date("2026-03-15T13:45:30.250Z")},
		{name: "$toDate of null is null", expr: bson.D{{Key: "$toDate", Value: nil}}, want: nil},
		{name: "$convert onError", expr: bson.D{{Key: "$convert", Value: bson.D{{Key: "input", Value: "x"}, {Key: "to", Value: "int"}, {Key: "onError", Value: int32(-1)}}}}, want: int32(-1)},
		{name: "$convert onNull", expr: bson.D{{Key: "$convert", Value: bson.D{{Key: "input", Value: "$zz"}, {Key: "to", Value: "int"}, {Key: "onNull", Value: int32(0)}}}}, doc: sample, want: int32(0)},
		{name: "$convert numeric type code", expr: bson.D{{Key: "$convert", Value: bson.D{{Key: "input", Value: "7"}, {Key: "to", Value: int32(18)}}}}, want: int64(7)},
		{name: "$convert unsupported conversion is 241", expr: bson.D{{Key: "$convert", Value: bson.D{{Key: "input", Value: bson.A{}}, {Key: "to", Value: "int"}}}}, code: 241, msg: "Unsupported conversion from array to int in $convert with no onError value"},
	})
}

func TestExprDates(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$year", expr: bson.D{{Key: "$year", Value: "$when"}}, doc: sample, want: int32(2026)},
		{name: "$month", expr: bson.D{{Key: "$month", Value: "$when"}}, doc: sample, want: int32(3)},
		{name: "$dayOfMonth", expr: bson.D{{Key: "$dayOfMonth", Value: "$when"}}, doc: sample, want: int32(15)},
		{name: "$hour in a timezone", expr: bson.D{{Key: "$hour", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "timezone", Value: "Europe/Istanbul"}}}}, doc: sample, want: int32(16)},
		{name: "$hour with an offset", expr: bson.D{{Key: "$hour", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "timezone", Value: "-05:00"}}}}, doc: sample, want: int32(8)},
		{name: "$minute", expr: bson.D{{Key: "$minute", Value: "$when"}}, doc: sample, want: int32(45)},
		{name: "$second", expr: bson.D{{Key: "$second", Value: "$when"}}, doc: sample, want: int32(30)},
		{name: "$millisecond", expr: bson.D{{Key: "$millisecond", Value: "$when"}}, doc: sample, want: int32(250)},
		{name: "$dayOfWeek is 1 for Sunday", expr: bson.D{{Key: "$dayOfWeek", Value: "$when"}}, doc: sample, want: int32(1)},
		{name: "$dayOfYear", expr: bson.D{{Key: "$dayOfYear", Value: "$when"}}, doc: sample, want: int32(74)},
		{name: "$year of a string is error 16006", expr: bson.D{{Key: "$year", Value: "x"}}, code: 16006, msg: "can't convert from BSON type string to Date"},
		{name: "$year of null is null", expr: bson.D{{Key: "$year", Value: nil}}, want: nil},
		{name: "bad timezone is error 40485", expr: bson.D{{Key: "$hour", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "timezone", Value: "Mars/Base"}}}}, doc: sample, code: 40485},
		{name: "$dateToString default format", expr: bson.D{{Key: "$dateToString", Value: bson.D{{Key: "date", Value: "$when"}}}}, doc: sample, want: "2026-03-15T13:45:30.250Z"},
		{name: "$dateToString custom format", expr: bson.D{{Key: "$dateToString", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "format", Value: "%Y/%m/%d %j %%"}}}}, doc: sample, want: "2026/03/15 074 %"},
		{name: "$dateToString onNull", expr: bson.D{{Key: "$dateToString", Value: bson.D{{Key: "date", Value: "$zz"}, {Key: "onNull", Value: "none"}}}}, doc: sample, want: "none"},
		{name: "$dateToString bad directive is error 18536", expr: bson.D{{Key: "$dateToString", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "format", Value: "%Q"}}}}, code: 18536},
		{name: "$dateAdd months clamps the day", expr: bson.D{{Key: "$dateAdd", Value: bson.D{{Key: "startDate", Value: date("2026-01-31T00:00:00Z")}, {Key: "unit", Value: "month"}, {Key: "amount", Value: int32(1)}}}}, want: date("2026-02-28T00:00:00Z")},
		{name: "$dateAdd days", expr: bson.D{{Key: "$dateAdd", Value: bson.D{{Key: "startDate", Value: "$when"}, {Key: "unit", Value: "day"}, {Key: "amount", Value: int64(30)}}}}, doc: sample, want: date("2026-04-14T13:45:30.250Z")},
		{name: "$dateSubtract hours", expr: bson.D{{Key: "$dateSubtract", Value: bson.D{{Key: "startDate", Value: "$when"}, {Key: "unit", Value: "hour"}, {Key: "amount", Value: int32(2)}}}}, doc: sample, want: date("2026-03-15T11:45:30.250Z")},
		{name: "$dateAdd fractional amount is error 5166405", expr: bson.D{{Key: "$dateAdd", Value: bson.D{{Key: "startDate", Value: "$when"}, {Key: "unit", Value: "day"}, {Key: "amount", Value: 1.5}}}}, doc: sample, code: 5166405},
		{name: "$dateDiff days counts midnights", expr: bson.D{{Key: "$dateDiff", Value: bson.D{{Key: "startDate", Value: date("2026-01-01T23:00:00Z")}, {Key: "endDate", Value: date("2026-01-02T01:00:00Z")}, {Key: "unit", Value: "day"}}}}, want: int64(1)},
		{name: "$dateDiff years counts year boundaries", expr: bson.D{{Key: "$dateDiff", Value: bson.D{{Key: "startDate", Value: date("2025-12-31T00:00:00Z")}, {Key: "endDate", Value: date("2026-01-01T00:00:00Z")}, {Key: "unit", Value: "year"}}}}, want: int64(1)},
		{name: "$dateDiff weeks from Sunday", expr: bson.D{{Key: "$dateDiff", Value: bson.D{{Key: "startDate", Value: date("2026-03-14T00:00:00Z")}, {Key: "endDate", Value: date("2026-03-15T00:00:00Z")}, {Key: "unit", Value: "week"}}}}, want: int64(1)},
		{name: "$dateDiff missing unit is error 5166305", expr: bson.D{{Key: "$dateDiff", Value: bson.D{{Key: "startDate", Value: "$when"}, {Key: "endDate", Value: "$when"}}}}, code: 5166305},
	})
}

func TestExprMoreOperators(t *testing.T) {
	runExprCases(t, []exprCase{
		{name: "$regexMatch", expr: bson.D{{Key: "$regexMatch", Value: bson.D{{Key: "input", Value: "Hello"}, {Key: "regex", Value: "^h"}, {Key: "options", Value: "i"}}}}, want: true},
		{name: "$regexFind returns match, idx and captures", expr: bson.D{{Key: "$regexFind", Value: bson.D{{Key: "input", Value: "ab12cd34"}, {Key: "regex", Value: "([a-z]+)(\\d+)"}}}},
			want: bson.D{{Key: "match", Value: "ab12"}, {Key: "idx", Value: int32(0)}, {Key: "captures", Value: bson.A{"ab", "12"}}}},
		{name: "$regexFindAll", expr: bson.D{{Key: "$regexFindAll", Value: bson.D{{Key: "input", Value: "a1b2"}, {Key: "regex", Value: "\\d"}}}},
			want: bson.A{bson.D{{Key: "match", Value: "1"}, {Key: "idx", Value: int32(1)}, {Key: "captures", Value: bson.A{}}}, bson.D{{Key: "match", Value: "2"}, {Key: "idx", Value: int32(3)}, {Key: "captures", Value: bson.A{}}}}},
		{name: "$regexMatch on a non-string is error 51104", expr: bson.D{{Key: "$regexMatch", Value: bson.D{{Key: "input", Value: int32(1)}, {Key: "regex", Value: "x"}}}}, code: 51104},
		{name: "$replaceAll", expr: bson.D{{Key: "$replaceAll", Value: bson.D{{Key: "input", Value: "a-b-c"}, {Key: "find", Value: "-"}, {Key: "replacement", Value: "+"}}}}, want: "a+b+c"},
		{name: "$replaceOne", expr: bson.D{{Key: "$replaceOne", Value: bson.D{{Key: "input", Value: "a-b-c"}, {Key: "find", Value: "-"}, {Key: "replacement", Value: ""}}}}, want: "ab-c"},
		{name: "$sortArray by value", expr: bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{int32(3), "a", int32(1)}}, {Key: "sortBy", Value: int32(1)}}}}, want: bson.A{int32(1), int32(3), "a"}},
		{name: "$sortArray by field", expr: bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{bson.D{{Key: "x", Value: int32(2)}}, bson.D{{Key: "x", Value: int32(1)}}}}, {Key: "sortBy", Value: bson.D{{Key: "x", Value: int32(-1)}}}}}},
			want: bson.A{bson.D{{Key: "x", Value: int32(2)}}, bson.D{{Key: "x", Value: int32(1)}}}},
		{name: "$zip shortest", expr: bson.D{{Key: "$zip", Value: bson.D{{Key: "inputs", Value: bson.A{bson.A{int32(1), int32(2)}, bson.A{"a"}}}}}}, want: bson.A{bson.A{int32(1), "a"}}},
		{name: "$zip longest with defaults", expr: bson.D{{Key: "$zip", Value: bson.D{{Key: "inputs", Value: bson.A{bson.A{int32(1), int32(2)}, bson.A{"a"}}}, {Key: "useLongestLength", Value: true}, {Key: "defaults", Value: bson.A{int32(0), "z"}}}}},
			want: bson.A{bson.A{int32(1), "a"}, bson.A{int32(2), "z"}}},
		{name: "$dateTrunc to the hour", expr: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "unit", Value: "hour"}}}}, doc: sample, want: date("2026-03-15T13:00:00Z")},
		{name: "$dateTrunc to quarter", expr: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "unit", Value: "quarter"}}}}, doc: sample, want: date("2026-01-01T00:00:00Z")},
		{name: "$dateTrunc week from Monday", expr: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "unit", Value: "week"}, {Key: "startOfWeek", Value: "monday"}}}}, doc: sample, want: date("2026-03-09T00:00:00Z")},
		{name: "$dateTrunc 15-minute bins", expr: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "unit", Value: "minute"}, {Key: "binSize", Value: int32(15)}}}}, doc: sample, want: date("2026-03-15T13:45:00Z")},
		{name: "$dateTrunc day in a timezone", expr: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$when"}, {Key: "unit", Value: "day"}, {Key: "timezone", Value: "+03:00"}}}}, doc: sample, want: date("2026-03-14T21:00:00Z")},
	})
}
