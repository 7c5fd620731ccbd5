// Package match compiles query filters into Filters that match documents:
// a client's filter with $expr evaluated against an Env ($$NOW and the
// command's let variables), or a stored one without $expr (a partial index's
// filter, a collection's validator).
//
// A nil *Filter matches every document.
package match
