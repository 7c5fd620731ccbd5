package query

import (
	"math"
	"regexp/syntax"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Predicate is a condition on one path that every document matching the
// filter satisfies: a necessary condition, taken from the filter's top-level
// conjunction (nested $and included, $or/$nor/$not/$expr ignored). A planner
// can scan an index on Path within the predicate's Intervals and must still
// run Filter.Match on each document it fetches: the intervals may admit
// documents the filter rejects (other clauses, arrays, collation-free
// regexes), never the reverse.
//
// Several predicates on one path are reported separately: on a multikey
// (array) path {a: {$gt: 5, $lt: 3}} can match [1, 10], so their intervals
// may be intersected only when the index is known not to be multikey.
type Predicate struct {
	// Path is the dotted path the condition constrains.
	Path string
	// Op is "$eq", "$in", "$gt", "$gte", "$lt", "$lte" or "$regex".
	Op string
	// Value is the operand ($eq, comparisons, $regex as a bson.Regex).
	Value any
	// Values is the operand list of $in.
	Values []any
}

// Interval is a range of index key values, in Compare order.
type Interval struct {
	Low, High                   any
	LowInclusive, HighInclusive bool
}

// Predicates returns the index-usable predicates of the filter's top-level
// conjunction, in filter order.
func (f *Filter) Predicates() []Predicate {
	var out []Predicate
	collectPredicates(f.root, &out)
	return out
}

func collectPredicates(n node, out *[]Predicate) {
	switch x := n.(type) {
	case *andNode:
		for _, c := range x.children {
			collectPredicates(c, out)
		}
	case *pathNode:
		switch p := x.pred.(type) {
		case *cmpPred:
			if x.op == "$all" || x.op == "" {
				return
			}
			op := map[cmpOp]string{opEQ: "$eq", opLT: "$lt", opLTE: "$lte", opGT: "$gt", opGTE: "$gte"}[p.op]
			*out = append(*out, Predicate{Path: x.path, Op: op, Value: p.rhs})
		case *inPred:
			vals := append([]any{}, p.values...)
			for _, r := range p.regexes {
				vals = append(vals, bson.Regex{Pattern: r.pattern, Options: r.options})
			}
			*out = append(*out, Predicate{Path: x.path, Op: "$in", Values: vals})
		case *regexPred:
			*out = append(*out, Predicate{Path: x.path, Op: "$regex", Value: bson.Regex{Pattern: p.pattern, Options: p.options}})
		}
	}
}

// Intervals returns the index key ranges that can hold documents satisfying
// the predicate, following MongoDB's index bounds: type-bracketed ranges
// ($gt: 5 is (5, Infinity]), equality with an array also covering its first
// element (an index on an array field holds its elements), a range against
// an array covering every key (the index holds the elements, not the array
// the range compares), null covering
// missing fields (indexed as null), regexes covering all strings (or only
// those with a literal prefix for an anchored, case-sensitive pattern) and
// the identical regex value. The intervals are neither sorted nor merged.
func (p Predicate) Intervals() []Interval {
	switch p.Op {
	case "$eq":
		return eqIntervals(p.Value)
	case "$in":
		var out []Interval
		for _, v := range p.Values {
			if r, ok := v.(bson.Regex); ok {
				out = append(out, regexIntervals(r)...)
				continue
			}
			out = append(out, eqIntervals(v)...)
		}
		return out
	case "$regex":
		return regexIntervals(p.Value.(bson.Regex))
	case "$gt", "$gte", "$lt", "$lte":
		return rangeIntervals(p.Op, p.Value)
	}
	return []Interval{{Low: bson.MinKey{}, High: bson.MaxKey{}, LowInclusive: true, HighInclusive: true}}
}

func point(v any) Interval {
	return Interval{Low: v, High: v, LowInclusive: true, HighInclusive: true}
}

func eqIntervals(v any) []Interval {
	if a, ok := AsArray(v); ok {
		if len(a) == 0 {
			return []Interval{point(bson.Undefined{}), point(v)}
		}
		return []Interval{point(a[0]), point(v)}
	}
	return []Interval{point(v)}
}

// bracket returns the smallest and largest (or the exclusive upper edge)
// values of v's canonical type rank.
func bracket(v any) (low any, high any, highInclusive bool) {
	switch CanonicalRank(v) {
	case RankNumber:
		return math.Inf(-1), math.Inf(1), true
	case RankString:
		return "", bson.D{}, false
	case RankObject:
		return bson.D{}, bson.A{}, false
	case RankArray:
		return bson.A{}, bson.Binary{Data: []byte{}}, false
	case RankBinary:
		return bson.Binary{Data: []byte{}}, bson.ObjectID{}, false
	case RankObjectID:
		var max bson.ObjectID
		for i := range max {
			max[i] = 0xff
		}
		return bson.ObjectID{}, max, true
	case RankBool:
		return false, true, true
	case RankDate:
		return bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), true
	case RankTimestamp:
		return bson.Timestamp{}, bson.Timestamp{T: math.MaxUint32, I: math.MaxUint32}, true
	case RankRegex:
		return bson.Regex{}, bson.DBPointer{}, false
	case RankDBPointer:
		return bson.DBPointer{}, bson.JavaScript(""), false
	case RankJavaScript:
		return bson.JavaScript(""), bson.CodeWithScope{Code: "", Scope: bson.D{}}, false
	case RankCodeWithScope:
		return bson.CodeWithScope{Code: "", Scope: bson.D{}}, bson.MaxKey{}, false
	case RankNull, RankUndefined:
		return nil, nil, true
	case RankMinKey:
		return bson.MinKey{}, bson.MinKey{}, true
	}
	return bson.MaxKey{}, bson.MaxKey{}, true
}

func rangeIntervals(op string, v any) []Interval {
	if _, ok := AsArray(v); ok {
		// A range against an array matches a whole array field by array
		// order, but the index holds that field's elements, which can lie
		// anywhere: MongoDB scans all keys and re-checks (INEXACT_FETCH).
		return []Interval{{Low: bson.MinKey{}, High: bson.MaxKey{}, LowInclusive: true, HighInclusive: true}}
	}
	switch v.(type) {
	case bson.MinKey:
		if op == "$gt" || op == "$gte" {
			return []Interval{{Low: v, High: bson.MaxKey{}, LowInclusive: op == "$gte", HighInclusive: true}}
		}
		if op == "$lte" {
			return []Interval{point(v)}
		}
		return nil
	case bson.MaxKey:
		if op == "$lt" || op == "$lte" {
			return []Interval{{Low: bson.MinKey{}, High: v, LowInclusive: true, HighInclusive: op == "$lte"}}
		}
		if op == "$gte" {
			return []Interval{point(v)}
		}
		return nil
	}
	if isNull(v) {
		if op == "$gte" || op == "$lte" {
			return []Interval{point(nil)}
		}
		return nil
	}
	if isNaN(v) {
		if op == "$gte" || op == "$lte" {
			return []Interval{point(math.NaN())}
		}
		return nil
	}
	low, high, highIncl := bracket(v)
	switch op {
	case "$gt", "$gte":
		return []Interval{{Low: v, High: high, LowInclusive: op == "$gte", HighInclusive: highIncl}}
	}
	return []Interval{{Low: low, High: v, LowInclusive: true, HighInclusive: op == "$lte"}}
}

func regexIntervals(r bson.Regex) []Interval {
	out := []Interval{point(r)}
	if prefix, ok := literalPrefix(r); ok && prefix != "" {
		if end, ok := prefixSuccessor(prefix); ok {
			return append(out, Interval{Low: prefix, High: end, LowInclusive: true})
		}
		return append(out, Interval{Low: prefix, High: bson.D{}, LowInclusive: true})
	}
	return append(out, Interval{Low: "", High: bson.D{}, LowInclusive: true})
}

// literalPrefix returns the literal text every match of an anchored,
// case-sensitive regex starts with.
func literalPrefix(r bson.Regex) (string, bool) {
	if strings.ContainsAny(r.Options, "imx") || !strings.HasPrefix(r.Pattern, "^") {
		return "", false
	}
	re, err := syntax.Parse(r.Pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return "", false
	}
	prefix, _ := prog.Prefix()
	return prefix, prog.StartCond()&syntax.EmptyBeginText != 0
}

// prefixSuccessor returns the smallest string greater than every string
// starting with prefix.
func prefixSuccessor(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}
