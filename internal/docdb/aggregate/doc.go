// Package aggregate implements MongoDB's aggregation language as pure
// functions over documents: expressions (Compile, Expr.Eval) and pipelines
// (Parse, Pipeline.Run). It holds no storage; stages that read or write
// other collections ($lookup, $graphLookup, $merge, $out) go through the
// Resolver and Writer interfaces that the caller implements.
//
// # Design
//
// Expressions compile once into closures. A value is a BSON value as the
// driver decodes it (bson.D, bson.A, int32, int64, float64,
// bson.Decimal128, bson.DateTime, nil, ...) or Missing, the absent value
// that a field path naming no field and $$REMOVE produce. Object
// expressions and stages leave Missing fields out; arrays turn Missing into
// null. Field paths follow the aggregation rule for arrays: "$a.b" over an
// array of documents is the array of their b values (non-documents
// skipped), unlike the query language's implicit traversal.
//
// Variables live in Vars, an immutable chain: $$NOW (one clock per
// command, injected), $$ROOT, and user variables bound by $let, $map,
// $filter, $reduce, $lookup's let and a command's let. Compilation checks
// that every $$name is defined (17276) and evaluation reads the chain.
//
// Arithmetic follows MongoDB's widening: int32 overflow gives int64, int64
// overflow gives double in expressions (the update language's $inc and
// $mul report an error instead: AddNumbers, MulNumbers); a double makes a
// double and a decimal a decimal. Decimal128 arithmetic is done here
// (decimal.go) with big.Int and rounding to 34 digits, half to even.
//
// A Pipeline is a list of stages, each wrapping an Iterator. $match,
// $project, $addFields, $unset, $replaceRoot, $unwind, $lookup,
// $graphLookup, $limit and $skip stream; $sort, $group, $bucket,
// $sortByCount, $facet, $count, $sample and $out consume their input first
// ($sort followed by $limit keeps only the top documents). Every iterator
// checks the context between documents. LeadingMatch splits off the
// leading $match filter so the caller can answer it from an index.
//
// Comparison, equality and sort keys come from package query (query.Compare,
// query.Sort), so aggregation orders values exactly as find does, and
// $match is query.Filter.
//
// # Testing
//
// expr_test.go and stages_test.go are tables naming the MongoDB rule of
// each case, with exact error codes and messages; seed_test.go runs the
// pipelines of the data-modelling seed (003) over an in-memory Resolver
// and Writer (memstore_test.go); property_test.go has rapid properties
// (random expression trees never panic, integer widening, decimal
// arithmetic against big.Rat, group keys); fuzz_test.go fuzzes Parse and
// Compile.
package aggregate
