package aggregate

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func TestSetFieldAndUnsetField(t *testing.T) {
	doc := bson.D{{Key: "_id", Value: 1}, {Key: "foo", Value: bson.D{{Key: "x", Value: 2}}}, {Key: "$a", Value: 3}}
	sf := func(args ...bson.E) bson.D { return bson.D{{Key: "$setField", Value: bson.D(args)}} }
	uf := func(args ...bson.E) bson.D { return bson.D{{Key: "$unsetField", Value: bson.D(args)}} }
	lit := func(s string) bson.D { return bson.D{{Key: "$literal", Value: s}} }
	field := func(v any) bson.E { return bson.E{Key: "field", Value: v} }
	input := func(v any) bson.E { return bson.E{Key: "input", Value: v} }
	value := func(v any) bson.E { return bson.E{Key: "value", Value: v} }
	runExprCases(t, []exprCase{
		{name: "a dollar-prefixed top-level field is set through $literal", expr: sf(field(lit("$b")), value(1), input("$$ROOT")),
			doc: doc, want: bson.D{{Key: "_id", Value: 1}, {Key: "foo", Value: bson.D{{Key: "x", Value: 2}}}, {Key: "$a", Value: 3}, {Key: "$b", Value: 1}}},
		{name: "a dotted name is one field, not a path", expr: sf(field("a.b"), value(1), input("$foo")),
			doc: doc, want: bson.D{{Key: "x", Value: 2}, {Key: "a.b", Value: 1}}},
		{name: "an existing field keeps its place", expr: sf(field(lit("$a")), value("v"), input("$$ROOT")),
			doc: doc, want: bson.D{{Key: "_id", Value: 1}, {Key: "foo", Value: bson.D{{Key: "x", Value: 2}}}, {Key: "$a", Value: "v"}}},
		{name: "$$REMOVE removes the field", expr: sf(field("foo"), value("$$REMOVE"), input("$$ROOT")),
			doc: doc, want: bson.D{{Key: "_id", Value: 1}, {Key: "$a", Value: 3}}},
		{name: "$unsetField removes the field", expr: uf(field(lit("$a")), input("$$ROOT")),
			doc: doc, want: bson.D{{Key: "_id", Value: 1}, {Key: "foo", Value: bson.D{{Key: "x", Value: 2}}}}},
		{name: "a null input gives null", expr: sf(field("a"), value(1), input(nil)), doc: doc, want: nil},
		{name: "a missing input gives null", expr: uf(field("a"), input("$nope")), doc: doc, want: nil},
		{name: "the input must be an object", expr: sf(field("a"), value(1), input(5)), doc: doc,
			code: mongoerr.Location4161105, msg: "$setField requires 'input' to evaluate to type Object"},
		{name: "a field path as field is refused", expr: sf(field("$a"), value(1), input("$$ROOT")), doc: doc,
			code: mongoerr.Location4161108},
		{name: "field must be a string", expr: sf(field(5), value(1), input("$$ROOT")), doc: doc,
			code: mongoerr.Location4161107, msg: "$setField requires 'field' to evaluate to type String, but got int"},
		{name: "field must be constant", expr: sf(field(bson.D{{Key: "$concat", Value: bson.A{"a", "b"}}}), value(1), input("$$ROOT")), doc: doc,
			code: mongoerr.Location4161106},
		{name: "value is required", expr: sf(field("a"), input("$$ROOT")), doc: doc,
			code: mongoerr.Location4161103, msg: "$setField requires 'value' to be specified"},
		{name: "$unsetField takes no value", expr: uf(field("a"), value(1), input("$$ROOT")), doc: doc,
			code: mongoerr.Location4161101, msg: "$unsetField found an unknown argument: value"},
		{name: "input is required", expr: sf(field("a"), value(1)), doc: doc,
			code: mongoerr.Location4161104, msg: "$setField requires 'input' to be specified"},
		{name: "the argument is an object", expr: bson.D{{Key: "$setField", Value: 1}}, doc: doc,
			code: mongoerr.Location4161100, msg: "$setField only supports an object as its argument"},
	})
	// The input document is never changed.
	if len(doc) != 3 || doc[2].Key != "$a" {
		t.Fatalf("input changed: %v", doc)
	}
}
