package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ExprCompiler compiles the argument of $expr (an aggregation expression,
// such as bson.D{{"$gt", bson.A{"$a", "$b"}}}) into a predicate over
// documents. The predicate returns the expression's result coerced to a
// boolean the way $expr does (null, missing, false and 0 are false), or an
// error that aborts the query (for example a $divide by zero). It must be
// safe to call from several goroutines. internal/docdb/aggregate provides
// one; it also closes over $$NOW, let variables and collation.
type ExprCompiler func(expr any) (func(doc bson.D) (bool, error), error)

// ParseOptions configures ParseFilterWith.
type ParseOptions struct {
	// Expr compiles $expr. When nil, $expr is refused with
	// QueryFeatureNotAllowed (as in partial index filters).
	Expr ExprCompiler
}

// Filter is a parsed query filter. It is immutable and safe for concurrent
// use.
type Filter struct {
	root node
	spec bson.D
}

// MatchResult reports the outcome of matching one document.
type MatchResult struct {
	// Matched reports whether the document satisfies the filter.
	Matched bool
	// ArrayIndex is the array position that the positional $ operator of an
	// update or projection refers to: the index, in the first array the
	// matching predicate traversed, of the element that matched (MongoDB's
	// elemMatchKey). It is -1 when the match went through no array. Only the
	// predicates of the top-level conjunction record it (not those under
	// $or, $nor or $not), and the last one that recorded a position wins.
	ArrayIndex int
}

// ParseFilter parses a query filter with MongoDB's rules. $expr is refused;
// use ParseFilterWith to allow it.
func ParseFilter(filter bson.D) (*Filter, error) {
	return ParseFilterWith(filter, ParseOptions{})
}

// ParseFilterWith parses a query filter with the given options.
func ParseFilterWith(filter bson.D, opts ParseOptions) (*Filter, error) {
	p := parser{opts: opts}
	root, err := p.parseDoc(filter, levelTop, 0)
	if err != nil {
		return nil, err
	}
	return &Filter{root: root, spec: filter}, nil
}

// Spec returns the filter document the Filter was parsed from.
func (f *Filter) Spec() bson.D { return f.spec }

// Match reports whether doc satisfies the filter. An error raised while
// evaluating $expr counts as no match; use Eval to see it.
func (f *Filter) Match(doc bson.D) bool {
	ec := evalCtx{index: -1}
	ok := f.root.match(doc, &ec)
	return ok && ec.err == nil
}

// Eval matches doc and reports the positional array index and any error
// raised by $expr.
func (f *Filter) Eval(doc bson.D) (MatchResult, error) {
	ec := evalCtx{record: true, index: -1}
	ok := f.root.match(doc, &ec)
	if ec.err != nil {
		return MatchResult{ArrayIndex: -1}, ec.err
	}
	if !ok {
		return MatchResult{ArrayIndex: -1}, nil
	}
	return MatchResult{Matched: true, ArrayIndex: ec.index}, nil
}

// evalCtx carries per-evaluation state through the node tree.
type evalCtx struct {
	record bool // record the positional array index
	index  int
	err    error // first error raised by $expr
}

// node is one match expression over a whole (sub)document.
type node interface {
	match(doc bson.D, ec *evalCtx) bool
}

type andNode struct{ children []node }

func (n *andNode) match(doc bson.D, ec *evalCtx) bool {
	for _, c := range n.children {
		if !c.match(doc, ec) {
			if ec.record {
				ec.index = -1
			}
			return false
		}
	}
	return true
}

type orNode struct{ children []node }

func (n *orNode) match(doc bson.D, ec *evalCtx) bool {
	saved := ec.record
	ec.record = false
	defer func() { ec.record = saved }()
	for _, c := range n.children {
		if c.match(doc, ec) {
			return true
		}
	}
	return false
}

type norNode struct{ children []node }

func (n *norNode) match(doc bson.D, ec *evalCtx) bool {
	saved := ec.record
	ec.record = false
	defer func() { ec.record = saved }()
	for _, c := range n.children {
		if c.match(doc, ec) {
			return false
		}
	}
	return true
}

type notNode struct{ child node }

func (n *notNode) match(doc bson.D, ec *evalCtx) bool {
	saved := ec.record
	ec.record = false
	defer func() { ec.record = saved }()
	return !n.child.match(doc, ec)
}

type constNode struct{ value bool }

func (n *constNode) match(bson.D, *evalCtx) bool { return n.value }

type exprNode struct {
	fn   func(doc bson.D) (bool, error)
	spec any
}

func (n *exprNode) match(doc bson.D, ec *evalCtx) bool {
	ok, err := n.fn(doc)
	if err != nil {
		if ec.err == nil {
			ec.err = err
		}
		return false
	}
	return ok
}

// pathNode applies one predicate to the values a path reaches; it matches if
// any of them satisfies the predicate.
type pathNode struct {
	path  string
	parts []string
	leaf  LeafArrays
	pred  predicate
	// op and arg name the operator for validation error details; implicit
	// marks {path: value} equality written without $eq.
	op       string
	arg      any
	implicit bool
}

func (n *pathNode) match(doc bson.D, ec *evalCtx) bool {
	matched := false
	Walk(doc, n.parts, n.leaf, func(c Candidate) bool {
		ok, idx := n.pred.matches(c)
		if !ok {
			return true
		}
		matched = true
		if ec.record {
			if c.ArrayIndex >= 0 {
				ec.index = c.ArrayIndex
			} else if idx >= 0 {
				ec.index = idx
			}
		}
		return false
	})
	return matched
}
