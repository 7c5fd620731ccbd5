// Package plan chooses and runs the access path of a read: a collection
// scan, or one index scanned within bounds computed from the filter's
// predicates, possibly in the order the sort asks for (Choose). A Scanner
// walks that path over a storage reader and yields candidate documents; a
// Matcher passes them through the whole filter and the read's Visibility.
// Explain renders a Plan and its Stats as MongoDB's classic-engine explain
// output (Tree, QueryPlanner, ExecutionStats).
//
// Rules:
//
//   - Bounds only narrow the scan: every fetched document is matched
//     against the whole filter again, so bounds need only be a superset of
//     the matching keys.
//   - A Plan holds the collection metadata it was chosen for; the caller
//     reads with a storage snapshot taken together with that metadata.
//   - Hidden indexes are never chosen nor hinted; sparse and partial
//     indexes only when the filter says they hold every match.
package plan
