package update

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

var now = time.Date(2026, 11, 5, 10, 30, 0, 0, time.UTC)

// updateCase applies update to doc. A non-zero code means Parse or Apply
// must fail with that code (and msg, when set, exactly).
type updateCase struct {
	name     string // the MongoDB rule the case checks
	doc      bson.D
	update   any
	opts     Options
	ctx      ApplyContext
	want     bson.D
	modified *bool
	code     mongoerr.Code
	msg      string
}

func ptr(b bool) *bool { return &b }

func runUpdateCases(t *testing.T, cases []updateCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := c.ctx
			if ctx.Now.IsZero() {
				ctx.Now = now
			}
			got, modified, err := parseApply(c.update, c.opts, c.doc, ctx)
			if c.code != 0 {
				e, ok := mongoerr.As(err)
				if !ok {
					t.Fatalf("got %s, %v; want error code %d", aggregate.FormatValue(got), err, c.code)
				}
				if e.Code != c.code || (c.msg != "" && e.Message != c.msg) {
					t.Fatalf("got error %d %q; want %d %q", e.Code, e.Message, c.code, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !StrictEqual(got, c.want) {
				t.Fatalf("got  %s\nwant %s", aggregate.FormatValue(got), aggregate.FormatValue(c.want))
			}
			if c.modified != nil && modified != *c.modified {
				t.Fatalf("modified = %v; want %v", modified, *c.modified)
			}
		})
	}
}

func parseApply(update any, opts Options, doc bson.D, ctx ApplyContext) (bson.D, bool, error) {
	u, err := Parse(update, opts)
	if err != nil {
		return nil, false, err
	}
	orig := aggregate.CloneDoc(doc)
	out, mod, err := u.Apply(doc, ctx)
	if !StrictEqual(orig, doc) {
		panic("Apply modified its input")
	}
	return out, mod, err
}

type D = bson.D
type A = bson.A
type E = bson.E

func op(name string, fields ...E) D { return D{{Key: name, Value: D(fields)}} }
func f(k string, v any) E           { return E{Key: k, Value: v} }

func TestSetUnset(t *testing.T) {
	base := D{f("_id", int32(1)), f("a", int32(1)), f("b", D{f("c", "x")})}
	runUpdateCases(t, []updateCase{
		{name: "$set of an existing field keeps its position", doc: base, update: op("$set", f("a", int32(2))),
			want: D{f("_id", int32(1)), f("a", int32(2)), f("b", D{f("c", "x")})}, modified: ptr(true)},
		{name: "$set appends new fields in lexicographic order (MongoDB 5.0)", doc: D{f("_id", int32(1))}, update: op("$set", f("z", int32(1)), f("m", int32(2))),
			want: D{f("_id", int32(1)), f("m", int32(2)), f("z", int32(1))}},
		{name: "numeric field names are applied in numeric order", doc: D{f("_id", int32(1))}, update: op("$set", f("10", int32(1)), f("9", int32(2))),
			want: D{f("_id", int32(1)), f("9", int32(2)), f("10", int32(1))}},
		{name: "$set of an equal value is not a modification", doc: base, update: op("$set", f("a", int32(1))), want: base, modified: ptr(false)},
		{name: "$set of 1.0 over int 1 changes the type and modifies", doc: base, update: op("$set", f("a", 1.0)),
			want: D{f("_id", int32(1)), f("a", 1.0), f("b", D{f("c", "x")})}, modified: ptr(true)},
		{name: "$set creates missing intermediate documents", doc: D{f("_id", int32(1))}, update: op("$set", f("x.y.z", int32(1))),
			want: D{f("_id", int32(1)), f("x", D{f("y", D{f("z", int32(1))})})}},
		{name: "$set through a scalar is PathNotViable 28", doc: base, update: op("$set", f("a.b", int32(1))),
			code: 28, msg: "Cannot create field 'b' in element {a: 1}"},
		{name: "$set of an array index beyond the end pads with null", doc: D{f("_id", int32(1)), f("a", A{int32(1)})}, update: op("$set", f("a.3", int32(9))),
			want: D{f("_id", int32(1)), f("a", A{int32(1), nil, nil, int32(9)})}},
		{name: "$set numeric component on a missing field creates a document", doc: D{f("_id", int32(1))}, update: op("$set", f("a.0", int32(9))),
			want: D{f("_id", int32(1)), f("a", D{f("0", int32(9))})}},
		{name: "$set non-numeric field in an array is PathNotViable", doc: D{f("_id", int32(1)), f("a", A{int32(1)})}, update: op("$set", f("a.x", int32(9))),
			code: 28, msg: "Cannot create field 'x' in element {a: [ 1 ]}"},
		{name: "$set into array element documents", doc: D{f("_id", int32(1)), f("a", A{D{f("b", int32(1))}})}, update: op("$set", f("a.0.b", int32(5))),
			want: D{f("_id", int32(1)), f("a", A{D{f("b", int32(5))}})}},
		{name: "$unset removes a field", doc: base, update: op("$unset", f("a", "")),
			want: D{f("_id", int32(1)), f("b", D{f("c", "x")})}},
		{name: "$unset of a missing field is a no-op", doc: base, update: op("$unset", f("zz", 1)), want: base, modified: ptr(false)},
		{name: "$unset through a scalar is a no-op", doc: base, update: op("$unset", f("a.b", 1)), want: base, modified: ptr(false)},
		{name: "$unset does not create intermediate documents", doc: base, update: op("$unset", f("x.y", 1)), want: base, modified: ptr(false)},
		{name: "$unset of an array element sets it to null", doc: D{f("_id", int32(1)), f("a", A{int32(1), int32(2)})}, update: op("$unset", f("a.0", 1)),
			want: D{f("_id", int32(1)), f("a", A{nil, int32(2)})}},
		{name: "$set of _id to another value is ImmutableField 66", doc: base, update: op("$set", f("_id", int32(2))),
			code: 66, msg: "Performing an update on the path '_id' would modify the immutable field '_id'"},
		{name: "$set of _id to the same value is allowed", doc: base, update: op("$set", f("_id", int32(1))), want: base, modified: ptr(false)},
		{name: "$unset of _id is ImmutableField 66", doc: base, update: op("$unset", f("_id", 1)), code: 66},
		{name: "$set of _id on upsert insert is allowed when the query gave none", doc: D{}, update: op("$set", f("_id", int32(7))), ctx: ApplyContext{Insert: true},
			want: D{f("_id", int32(7))}},
		{name: "upsert may not change the _id the query gave", doc: D{f("_id", int32(1))}, update: op("$set", f("_id", int32(7))), ctx: ApplyContext{Insert: true}, code: 66},
	})
}

func TestParseErrors(t *testing.T) {
	doc := D{f("_id", int32(1))}
	runUpdateCases(t, []updateCase{
		{name: "unknown modifier is FailedToParse 9", doc: doc, update: op("$foo", f("a", 1)),
			code: 9, msg: "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array"},
		{name: "non-$ field after an operator is an unknown modifier", doc: doc, update: D{f("$set", D{f("a", 1)}), f("b", 1)},
			code: 9, msg: "Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array"},
		{name: "empty operator document is FailedToParse 9", doc: doc, update: D{f("$set", D{})},
			code: 9, msg: "'$set' is empty. You must specify a field like so: {$set: {<field>: ...}}"},
		{name: "operator argument must be a document", doc: doc, update: D{f("$set", int32(1))}, code: 9},
		{name: "conflicting paths across operators is 40", doc: doc, update: D{f("$set", D{f("a", 1)}), f("$inc", D{f("a", 1)})},
			code: 40, msg: "Updating the path 'a' would create a conflict at 'a'"},
		{name: "conflict with a prefix reports the prefix", doc: doc, update: D{f("$set", D{f("a", 1)}), f("$inc", D{f("a.b", 1)})},
			code: 40, msg: "Updating the path 'a.b' would create a conflict at 'a'"},
		{name: "conflict when the longer path comes first", doc: doc, update: D{f("$set", D{f("a.b.c", 1)}), f("$unset", D{f("a.b", 1)})},
			code: 40, msg: "Updating the path 'a.b' would create a conflict at 'a.b'"},
		{name: "sibling paths do not conflict", doc: doc, update: op("$set", f("a.b", int32(1)), f("a.c", int32(2))),
			want: D{f("_id", int32(1)), f("a", D{f("b", int32(1)), f("c", int32(2))})}},
		{name: "empty path component is 56", doc: doc, update: op("$set", f("a..b", 1)), code: 56, msg: "The update path 'a..b' contains an empty field name, which is not allowed."},
		{name: "$-prefixed field is DollarPrefixedFieldName 52", doc: doc, update: op("$set", f("a.$b", 1)), code: 52},
		{name: "$inc with a string argument is TypeMismatch 14", doc: doc, update: op("$inc", f("a", "x")),
			code: 14, msg: "Cannot increment with non-numeric argument: {a: \"x\"}"},
		{name: "replacement with a $ field is 52", doc: doc, update: D{f("a", 1), f("$set", D{f("b", 1)})}, code: 52},
		{name: "replacement in a multi update is FailedToParse", doc: doc, update: D{f("a", 1)}, opts: Options{Multi: true},
			code: 9, msg: "multi update is not supported for replacement-style update"},
		{name: "$[id] without an array filter is BadValue", doc: doc, update: op("$set", f("a.$[x]", 1)),
			code: 2, msg: "No array filter found for identifier 'x' in path 'a.$[x]'"},
		{name: "unused array filter is FailedToParse", doc: doc, update: op("$set", f("a", 1)), opts: Options{ArrayFilters: []D{{f("x", 1)}}}, code: 9},
		{name: "positional operator without a match is BadValue", doc: D{f("_id", int32(1)), f("a", A{int32(1)})}, update: op("$set", f("a.$", 1)),
			code: 2, msg: "The positional operator did not find the match needed from the query."},
		{name: "$pop requires 1 or -1", doc: doc, update: op("$pop", f("a", int32(2))), code: 9, msg: "$pop expects 1 or -1, found: 2"},
		{name: "$rename to the same field is BadValue", doc: doc, update: op("$rename", f("a", "a")), code: 2},
		{name: "$rename to a non-string is BadValue", doc: doc, update: op("$rename", f("a", int32(1))), code: 2, msg: "The 'to' field for $rename must be a string: a: 1"},
		{name: "$currentDate with a bad $type is BadValue", doc: doc, update: op("$currentDate", f("a", D{f("$type", "int")})), code: 2},
		{name: "$push $each requires an array", doc: doc, update: op("$push", f("a", D{f("$each", int32(1))})), code: 2,
			msg: "The argument to $each in $push must be an array but it was of type: int"},
		{name: "$push unknown clause is BadValue", doc: doc, update: op("$push", f("a", D{f("$each", A{}), f("$foo", 1)})), code: 2,
			msg: "Unrecognized clause in $push: $foo"},
		{name: "pipeline update refuses other stages", doc: doc, update: A{D{f("$match", D{})}}, code: 72},
	})
}

func TestArithmeticOperators(t *testing.T) {
	runUpdateCases(t, []updateCase{
		{name: "$inc adds", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$inc", f("a", int32(2))), want: D{f("_id", int32(1)), f("a", int32(3))}},
		{name: "$inc creates a missing field with the increment", doc: D{f("_id", int32(1))}, update: op("$inc", f("a", int64(5))), want: D{f("_id", int32(1)), f("a", int64(5))}},
		{name: "$inc int32 overflow widens to int64", doc: D{f("_id", int32(1)), f("a", int32(math.MaxInt32))}, update: op("$inc", f("a", int32(1))),
			want: D{f("_id", int32(1)), f("a", int64(math.MaxInt32)+1)}},
		{name: "$inc int64 overflow is BadValue", doc: D{f("_id", int32(1)), f("a", int64(math.MaxInt64))}, update: op("$inc", f("a", int32(1))),
			code: 2, msg: "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"},
		{name: "$inc int with double gives double", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$inc", f("a", 0.5)), want: D{f("_id", int32(1)), f("a", 1.5)}},
		{name: "$inc on a string is TypeMismatch 14", doc: D{f("_id", int32(1)), f("a", "x")}, update: op("$inc", f("a", int32(1))),
			code: 14, msg: "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type string"},
		{name: "$inc by zero is a no-op", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$inc", f("a", int32(0))), want: D{f("_id", int32(1)), f("a", int32(1))}, modified: ptr(false)},
		{name: "$mul multiplies", doc: D{f("_id", int32(1)), f("a", int32(3))}, update: op("$mul", f("a", int32(4))), want: D{f("_id", int32(1)), f("a", int32(12))}},
		{name: "$mul on a missing field sets zero of the multiplier's type", doc: D{f("_id", int32(1))}, update: op("$mul", f("a", 2.5)), want: D{f("_id", int32(1)), f("a", 0.0)}},
		{name: "$mul on a string is TypeMismatch 14", doc: D{f("_id", "k"), f("a", "x")}, update: op("$mul", f("a", int32(1))),
			code: 14, msg: "Cannot apply $mul to a value of non-numeric type. {_id: \"k\"} has the field 'a' of non-numeric type string"},
		{name: "$min lowers", doc: D{f("_id", int32(1)), f("a", int32(5))}, update: op("$min", f("a", int32(3))), want: D{f("_id", int32(1)), f("a", int32(3))}},
		{name: "$min keeps a smaller value", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$min", f("a", int32(3))), want: D{f("_id", int32(1)), f("a", int32(1))}, modified: ptr(false)},
		{name: "$max raises across types by BSON order", doc: D{f("_id", int32(1)), f("a", int32(5))}, update: op("$max", f("a", "s")), want: D{f("_id", int32(1)), f("a", "s")}},
		{name: "$max creates a missing field", doc: D{f("_id", int32(1))}, update: op("$max", f("a", int32(3))), want: D{f("_id", int32(1)), f("a", int32(3))}},
		{name: "$currentDate true sets a date", doc: D{f("_id", int32(1))}, update: op("$currentDate", f("d", true)), want: D{f("_id", int32(1)), f("d", bson.NewDateTimeFromTime(now))}},
		{name: "$currentDate timestamp", doc: D{f("_id", int32(1))}, update: op("$currentDate", f("d", D{f("$type", "timestamp")})), want: D{f("_id", int32(1)), f("d", bson.Timestamp{T: uint32(now.Unix()), I: 1})}},
		{name: "$setOnInsert is ignored on update", doc: D{f("_id", int32(1))}, update: op("$setOnInsert", f("a", int32(1))), want: D{f("_id", int32(1))}, modified: ptr(false)},
		{name: "$setOnInsert applies on upsert insert", doc: D{f("_id", int32(1))}, update: op("$setOnInsert", f("a", int32(1))), ctx: ApplyContext{Insert: true}, want: D{f("_id", int32(1)), f("a", int32(1))}},
	})
}

func TestRename(t *testing.T) {
	runUpdateCases(t, []updateCase{
		{name: "$rename moves the value and appends the new name", doc: D{f("_id", int32(1)), f("a", int32(1)), f("b", int32(2))}, update: op("$rename", f("a", "z")),
			want: D{f("_id", int32(1)), f("b", int32(2)), f("z", int32(1))}},
		{name: "$rename onto an existing field replaces it in place", doc: D{f("_id", int32(1)), f("a", int32(1)), f("b", int32(2))}, update: op("$rename", f("b", "a")),
			want: D{f("_id", int32(1)), f("a", int32(2))}},
		{name: "$rename of a missing field is a no-op", doc: D{f("_id", int32(1))}, update: op("$rename", f("a", "b")), want: D{f("_id", int32(1))}, modified: ptr(false)},
		{name: "$rename into an embedded document creates it", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$rename", f("a", "x.y")),
			want: D{f("_id", int32(1)), f("x", D{f("y", int32(1))})}},
		{name: "$rename of an array element is BadValue", doc: D{f("_id", int32(1)), f("a", A{D{f("b", int32(1))}})}, update: op("$rename", f("a.0.b", "c")), code: 2},
		{name: "$rename source and destination conflict with other operators", doc: D{f("_id", int32(1))}, update: D{f("$rename", D{f("a", "b")}), f("$set", D{f("b", 1)})},
			code: 40, msg: "Updating the path 'b' would create a conflict at 'b'"},
	})
}

func TestArrayOperators(t *testing.T) {
	arr := func(vals ...any) D { return D{f("_id", int32(1)), f("a", A(vals))} }
	i := func(n int) int32 { return int32(n) }
	runUpdateCases(t, []updateCase{
		{name: "$push appends", doc: arr(i(1)), update: op("$push", f("a", i(2))), want: arr(i(1), i(2))},
		{name: "$push creates a missing array", doc: D{f("_id", int32(1))}, update: op("$push", f("a", i(2))), want: arr(i(2))},
		{name: "$push of an array pushes it as one element", doc: arr(), update: op("$push", f("a", A{i(1), i(2)})), want: arr(A{i(1), i(2)})},
		{name: "$push to a non-array is BadValue", doc: D{f("_id", int32(1)), f("a", i(1))}, update: op("$push", f("a", i(2))),
			code: 2, msg: "The field 'a' must be an array but is of type int in document {_id: 1}"},
		{name: "$push $each appends each", doc: arr(i(1)), update: op("$push", f("a", D{f("$each", A{i(2), i(3)})})), want: arr(i(1), i(2), i(3))},
		{name: "$push $position inserts", doc: arr(i(1), i(4)), update: op("$push", f("a", D{f("$each", A{i(2), i(3)}), f("$position", i(1))})), want: arr(i(1), i(2), i(3), i(4))},
		{name: "$push negative $position counts from the end", doc: arr(i(1), i(4)), update: op("$push", f("a", D{f("$each", A{i(2)}), f("$position", i(-1))})), want: arr(i(1), i(2), i(4))},
		{name: "$push $sort then $slice keeps the top n (subset pattern)", doc: arr(i(5), i(1)), update: op("$push", f("a", D{f("$each", A{i(3), i(9)}), f("$sort", i(-1)), f("$slice", i(3))})), want: arr(i(9), i(5), i(3))},
		{name: "$push negative $slice keeps the last n", doc: arr(i(1), i(2), i(3)), update: op("$push", f("a", D{f("$each", A{i(4)}), f("$slice", i(-2))})), want: arr(i(3), i(4))},
		{name: "$push modifiers may come before $each", doc: arr(i(1), i(2)), update: op("$push", f("a", D{f("$slice", i(-2)), f("$each", A{i(3)})})), want: arr(i(2), i(3))},
		{name: "$push $slice 0 empties", doc: arr(i(1)), update: op("$push", f("a", D{f("$each", A{i(4)}), f("$slice", i(0))})), want: arr()},
		{name: "$push $sort by field of embedded documents", doc: arr(D{f("s", i(2))}, D{f("s", i(1))}), update: op("$push", f("a", D{f("$each", A{D{f("s", i(3))}}), f("$sort", D{f("s", i(1))})})),
			want: arr(D{f("s", i(1))}, D{f("s", i(2))}, D{f("s", i(3))})},
		{name: "$addToSet adds a new value", doc: arr(i(1)), update: op("$addToSet", f("a", i(2))), want: arr(i(1), i(2))},
		{name: "$addToSet skips a numerically equal value", doc: arr(i(1)), update: op("$addToSet", f("a", 1.0)), want: arr(i(1)), modified: ptr(false)},
		{name: "$addToSet $each", doc: arr(i(1)), update: op("$addToSet", f("a", D{f("$each", A{i(1), i(2), i(2)})})), want: arr(i(1), i(2))},
		{name: "$addToSet to a non-array is BadValue", doc: D{f("_id", int32(1)), f("a", i(1))}, update: op("$addToSet", f("a", i(2))), code: 2,
			msg: "Cannot apply $addToSet to non-array field. Field named 'a' has non-array type int"},
		{name: "$pop 1 removes the last", doc: arr(i(1), i(2)), update: op("$pop", f("a", i(1))), want: arr(i(1))},
		{name: "$pop -1 removes the first", doc: arr(i(1), i(2)), update: op("$pop", f("a", i(-1))), want: arr(i(2))},
		{name: "$pop of an empty array is a no-op", doc: arr(), update: op("$pop", f("a", i(1))), want: arr(), modified: ptr(false)},
		{name: "$pop on a non-array is TypeMismatch", doc: D{f("_id", int32(1)), f("a", i(1))}, update: op("$pop", f("a", i(1))), code: 14, msg: "Path 'a' contains an element of non-array type 'int'"},
		{name: "$pull removes equal values", doc: arr(i(1), i(2), i(1)), update: op("$pull", f("a", i(1))), want: arr(i(2))},
		{name: "$pull with an operator condition", doc: arr(i(1), i(5), i(9)), update: op("$pull", f("a", D{f("$gte", i(5))})), want: arr(i(1))},
		{name: "$pull with a document condition matches element documents", doc: arr(D{f("x", i(1)), f("y", i(2))}, D{f("x", i(2))}), update: op("$pull", f("a", D{f("x", i(1))})),
			want: arr(D{f("x", i(2))})},
		{name: "$pull on a non-array is BadValue", doc: D{f("_id", int32(1)), f("a", i(1))}, update: op("$pull", f("a", i(1))), code: 2},
		{name: "$pullAll removes all listed values", doc: arr(i(1), i(2), i(3), i(1)), update: op("$pullAll", f("a", A{i(1), i(3)})), want: arr(i(2))},
		{name: "$pullAll requires an array", doc: arr(), update: op("$pullAll", f("a", i(1))), code: 2},
	})
}

func TestPositional(t *testing.T) {
	doc := D{f("_id", int32(1)), f("grades", A{D{f("g", int32(80)), f("n", int32(1))}, D{f("g", int32(95)), f("n", int32(2))}, D{f("g", int32(70)), f("n", int32(3))}})}
	runUpdateCases(t, []updateCase{
		{name: "$ updates the element the query matched", doc: doc, update: op("$set", f("grades.$.g", int32(0))), ctx: ApplyContext{HasPosition: true, Position: 1},
			want: D{f("_id", int32(1)), f("grades", A{D{f("g", int32(80)), f("n", int32(1))}, D{f("g", int32(0)), f("n", int32(2))}, D{f("g", int32(70)), f("n", int32(3))}})}},
		{name: "$[] updates every element", doc: doc, update: op("$inc", f("grades.$[].n", int32(10))),
			want: D{f("_id", int32(1)), f("grades", A{D{f("g", int32(80)), f("n", int32(11))}, D{f("g", int32(95)), f("n", int32(12))}, D{f("g", int32(70)), f("n", int32(13))}})}},
		{name: "$[id] updates the elements matching the array filter", doc: doc, update: op("$set", f("grades.$[low].g", int32(75))),
			opts: Options{ArrayFilters: []D{{f("low.g", D{f("$lt", int32(75))})}}},
			want: D{f("_id", int32(1)), f("grades", A{D{f("g", int32(80)), f("n", int32(1))}, D{f("g", int32(95)), f("n", int32(2))}, D{f("g", int32(75)), f("n", int32(3))}})}},
		{name: "$[id] with a scalar filter", doc: D{f("_id", int32(1)), f("a", A{int32(1), int32(5), int32(9)})}, update: op("$set", f("a.$[x]", int32(0))),
			opts: Options{ArrayFilters: []D{{f("x", D{f("$gt", int32(4))})}}},
			want: D{f("_id", int32(1)), f("a", A{int32(1), int32(0), int32(0)})}},
		{name: "$[] on a missing field is BadValue", doc: D{f("_id", int32(1))}, update: op("$set", f("a.$[]", int32(0))), code: 2,
			msg: "The path 'a' must exist in the document in order to apply array updates."},
		{name: "$[] on a non-array is BadValue", doc: D{f("_id", int32(1)), f("a", int32(1))}, update: op("$set", f("a.$[]", int32(0))), code: 2,
			msg: "Cannot apply array updates to non-array element a: 1"},
	})
}

func TestReplacementAndPipeline(t *testing.T) {
	doc := D{f("_id", int32(1)), f("a", int32(1)), f("b", int32(2))}
	runUpdateCases(t, []updateCase{
		{name: "replacement keeps _id first", doc: doc, update: D{f("x", int32(9))}, want: D{f("_id", int32(1)), f("x", int32(9))}},
		{name: "replacement with the same _id", doc: doc, update: D{f("x", int32(9)), f("_id", int32(1))}, want: D{f("x", int32(9)), f("_id", int32(1))}},
		{name: "replacement changing _id is ImmutableField", doc: doc, update: D{f("_id", int32(2))}, code: 66,
			msg: "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"},
		{name: "empty replacement leaves only _id", doc: doc, update: D{}, want: D{f("_id", int32(1))}},
		{name: "pipeline $set computes from fields", doc: doc, update: A{D{f("$set", D{f("c", D{f("$add", A{"$a", "$b"})})})}},
			want: D{f("_id", int32(1)), f("a", int32(1)), f("b", int32(2)), f("c", int32(3))}},
		{name: "pipeline $unset", doc: doc, update: A{D{f("$unset", "a")}}, want: D{f("_id", int32(1)), f("b", int32(2))}},
		{name: "pipeline $$NOW is the injected clock", doc: doc, update: A{D{f("$set", D{f("t", "$$NOW")})}},
			want: D{f("_id", int32(1)), f("a", int32(1)), f("b", int32(2)), f("t", bson.NewDateTimeFromTime(now))}},
		{name: "pipeline $replaceWith keeping _id", doc: doc, update: A{D{f("$replaceWith", D{f("_id", "$_id"), f("s", D{f("$add", A{"$a", "$b"})})})}},
			want: D{f("_id", int32(1)), f("s", int32(3))}},
		{name: "pipeline removing _id keeps the _id", doc: doc, update: A{D{f("$unset", A{"_id", "a"})}}, want: D{f("_id", int32(1)), f("b", int32(2))}},
		{name: "pipeline $replaceRoot without _id keeps it first", doc: D{f("_id", int32(1)), f("t", D{f("u", int32(5))})},
			update: A{D{f("$replaceRoot", D{f("newRoot", "$t")})}, D{f("$addFields", D{f("foo", int32(1))})}}, want: D{f("_id", int32(1)), f("u", int32(5)), f("foo", int32(1))}},
		{name: "pipeline changing _id is ImmutableField", doc: doc, update: A{D{f("$set", D{f("_id", int32(2))})}}, code: 66},
		{name: "pipeline $project", doc: doc, update: A{D{f("$project", D{f("a", int32(1))})}}, want: D{f("_id", int32(1)), f("a", int32(1))}},
	})
}

func TestUpsertSeed(t *testing.T) {
	cases := []struct {
		name   string
		filter D
		onlyID bool
		want   D
		code   mongoerr.Code
	}{
		{name: "equality fields are copied, _id first, others in path order", filter: D{f("b", int32(1)), f("_id", "x"), f("a", "y")}, want: D{f("_id", "x"), f("a", "y"), f("b", int32(1))}},
		{name: "$eq counts as equality", filter: D{f("a", D{f("$eq", int32(3))})}, want: D{f("a", int32(3))}},
		{name: "other operators are ignored", filter: D{f("a", D{f("$gt", int32(3))}), f("b", int32(1))}, want: D{f("b", int32(1))}},
		{name: "dotted paths create embedded documents", filter: D{f("a.b", int32(1)), f("a.c", int32(2))}, want: D{f("a", D{f("b", int32(1)), f("c", int32(2))})}},
		{name: "top-level $and contributes", filter: D{f("$and", A{D{f("x", int32(1))}, D{f("y", int32(2))}})}, want: D{f("x", int32(1)), f("y", int32(2))}},
		{name: "$or with several clauses contributes nothing", filter: D{f("$or", A{D{f("x", int32(1))}, D{f("y", int32(2))}})}, want: D{}},
		{name: "single-element $in is an equality", filter: D{f("a", D{f("$in", A{int32(5)})})}, want: D{f("a", int32(5))}},
		{name: "regex is not an equality", filter: D{f("a", bson.Regex{Pattern: "x"})}, want: D{}},
		{name: "replacement upserts only take _id", filter: D{f("_id", int32(1)), f("a", int32(2))}, onlyID: true, want: D{f("_id", int32(1))}},
		{name: "a path matched twice is NotSingleValueField", filter: D{f("a", int32(1)), f("$and", A{D{f("a", int32(2))}})}, code: 54},
		{name: "a path and its prefix is NotSingleValueField", filter: D{f("a", int32(1)), f("a.b", int32(2))}, code: 54},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := UpsertSeed(c.filter, c.onlyID)
			if c.code != 0 {
				if mongoerr.CodeOf(err) != c.code {
					t.Fatalf("got %v; want code %d", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !StrictEqual(got, c.want) {
				t.Fatalf("got %s; want %s", aggregate.FormatValue(got), aggregate.FormatValue(c.want))
			}
		})
	}
}

// TestUpsertFlow builds an upsert the way the server does: the seed from
// the query, then the update with Insert set.
func TestUpsertFlow(t *testing.T) {
	seed, err := UpsertSeed(D{f("customerId", "c1"), f("count", D{f("$lt", int32(10))})}, false)
	if err != nil {
		t.Fatal(err)
	}
	u, err := Parse(D{f("$push", D{f("tx", D{f("amt", int32(5))})}), f("$inc", D{f("count", int32(1))}), f("$setOnInsert", D{f("created", true)})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := u.Apply(seed, ApplyContext{Insert: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := D{f("customerId", "c1"), f("count", int32(1)), f("created", true), f("tx", A{D{f("amt", int32(5))}})}
	if !StrictEqual(got, want) {
		t.Fatalf("got %s; want %s", aggregate.FormatValue(got), aggregate.FormatValue(want))
	}
}
