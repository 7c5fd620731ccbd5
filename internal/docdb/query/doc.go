// Package query implements MongoDB's query language over documents as pure
// functions with no storage: the BSON comparison order, dotted paths,
// filters (ParseFilter, Filter.Match), validation error details,
// projections and sorts. Documents are bson.D values as the mongo-driver v2
// decodes them; errors are *mongoerr.Error values with MongoDB's codes and
// messages.
//
// # Design
//
// Order. Compare is MongoDB's total order over BSON values. Values of
// different types order by canonical type rank (MinKey < undefined < null <
// numbers < string and symbol < object < array < binData < ObjectId < bool <
// date < timestamp < regex < DBPointer < JavaScript < code with scope <
// MaxKey). All numeric types share one rank and compare by exact value, so
// NumberLong(9007199254740993) is greater than the double 9007199254740992,
// 1 == 1.0 == NumberDecimal("1.00"), and NaN equals NaN and sorts below
// every other number. Equal is Compare(a, b) == 0.
//
// Paths. A dotted path is read the way MongoDB's matcher reads it (Walk):
// documents are entered field by field; an array met before the end of the
// path is traversed implicitly (the rest of the path is applied to each
// element that is a document; scalars and nested arrays are skipped); a
// numeric component (a.0.b) also selects that array element; an array at the
// end of the path yields each element and then the array itself. A missing
// field yields one "missing" candidate. So {"a.b": 1} matches {a: [{b: 1}]},
// {a: 5} matches {a: [1, 5]} and {a: [1, 5]}, but {"a.b": 1} does not match
// {a: [[{b: 1}]]}. GetPath reads one location without traversal (for update
// operators) and ExprPath reads paths the way aggregation expressions do.
//
// Matching. A filter is an AND of its clauses; each operator on a path is
// its own predicate, satisfied if any candidate value satisfies it. So
// {a: {$gt: 5, $lt: 3}} matches {a: [1, 10]}, while $elemMatch requires one
// element to satisfy everything. Comparisons are type-bracketed: {a: {$gt:
// 5}} never matches a string or a date, only numbers. Null equality
// ({a: null}, {$in: [null]}, $gte/$lte null) also matches a missing field
// and undefined; {a: {$ne: null}} therefore requires the field to exist.
// $ne, $nin, $not and {$exists: false} are negations of the whole path
// expression: {a: {$ne: 1}} rejects {a: [1, 2]}. $size, $all and $elemMatch
// look at arrays as wholes. Regular expressions use Go's RE2 engine with
// MongoDB's options i, m, s, x (and u); PCRE-only syntax (backreferences,
// lookaround) is rejected as invalid (code 51091).
//
// $expr needs aggregation expressions, which live in
// internal/docdb/aggregate (which imports this package). The caller injects
// a compiler through ParseOptions.Expr; without one $expr is refused with
// QueryFeatureNotAllowed (224), which is also what partial index filters
// need. Errors raised while evaluating $expr come back from Filter.Eval.
//
// Positional $. Filter.Eval reports MatchResult.ArrayIndex, MongoDB's
// elemMatchKey: the index, in the first array the matching predicate
// traversed, of the element that matched. Only predicates of the top-level
// conjunction record it. Updates use it for "a.$" and projections for
// {"a.$": 1}.
//
// Validation. Filter.ValidationDetails explains why a document fails a
// validator, in the shape of MongoDB 5.1+'s errInfo.details
// (operatorName, schemaRulesNotSatisfied, propertiesNotSatisfied,
// missingProperties, reasons such as "type did not match").
//
// Planning. Filter.Predicates lists necessary per-path conditions of the
// top-level conjunction and Predicate.Intervals their index key ranges, with
// MongoDB's type bracketing. They may over-approximate; Match is always the
// final authority.
//
// # Testing
//
// Table tests name the MongoDB rule each case checks, with expected errors
// copied from mongod's sources and tests; rapid properties check that
// Compare and the sort comparator are total orders, that negation
// operators are exact complements and that index intervals never miss a
// matching value; FuzzFilter feeds arbitrary BSON to the parser and matcher.
package query
