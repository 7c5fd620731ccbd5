// Package update implements MongoDB's update language as pure functions over
// documents: operator updates ({$set: ..., $inc: ...}), replacement
// documents, and pipeline-style updates (an array of $set/$addFields,
// $unset, $replaceWith/$replaceRoot and $project stages). It also builds
// the document an upsert inserts from the equality parts of its query.
//
// # Design
//
// Parse turns an operator update into a tree keyed by path component, as
// mongod's UpdateObjectNode does. Inserting a path that passes through or
// ends at another path's node is the conflict error (code 40, "Updating the
// path 'a.b' would create a conflict at 'a'"). Apply walks the tree over a
// deep copy of the document. Children are visited in MongoDB 5.0's order:
// field names lexicographically, numeric names numerically, so new fields
// are appended in that order, while a field that already exists keeps its
// position. Missing intermediate documents are created only for operators
// that create ($set, $inc, $push, ...), and numeric components pad arrays
// with nulls. A path through a scalar is PathNotViable (28) for those
// operators and a no-op for $unset, $pull, $pop and the like.
//
// Positional components are resolved at apply time: "$" takes the array
// index the query matched (ApplyContext.Position), "$[]" every element and
// "$[id]" the elements that match the array filter named id.
//
// Whether a document was modified is decided by comparing the result with
// the input strictly (types and field order), so a $set of an equal value
// is a no-op exactly when MongoDB reports nModified 0.
//
// # Testing
//
// update_test.go holds table-driven cases, one per MongoDB rule, with the
// exact codes and messages; rapid properties check that $inc composes and
// that no-op updates report modified == false; FuzzParseApply feeds
// arbitrary update documents to Parse and Apply to find panics.
package update
