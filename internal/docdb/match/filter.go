package match

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Filter is a parsed query filter (query.Filter) ready to match documents.
type Filter struct {
	Q *query.Filter
	// coll is the filter's collation, nil for the simple one. Q was then
	// parsed from the filter with its strings mapped to collation keys,
	// and matches documents whose strings are mapped the same way.
	coll *collation.Collator
}

// Collated reports whether the filter compares strings by a collation
// (its predicates then hold collation keys, which only an index with the
// same collation stores).
func (f *Filter) Collated() bool { return f != nil && f.coll != nil }

// Collation returns the filter's collation, nil for the simple one.
func (f *Filter) Collation() *collation.Collator {
	if f == nil {
		return nil
	}
	return f.coll
}

// Parse parses a filter without $expr (partial index filters and
// stored validators parse this way).
func Parse(d bson.D) (*Filter, error) {
	q, err := query.ParseFilter(d)
	if err != nil {
		return nil, err
	}
	return &Filter{Q: q}, nil
}

// Env is what $expr sees: $$NOW and the command's let variables, and the
// command's collation (nil for the simple binary one).
type Env struct {
	Now       time.Time
	Let       bson.D
	Collation *collation.Collator
}

// NewEnv returns the Env of a command run at now with the let variables
// let. Each variable's value is an aggregation expression ({$literal: ...},
// {$rand: {}}, $$NOW, ...), evaluated once, with no document, before the
// command runs; an earlier variable is not visible to a later one.
func NewEnv(now time.Time, let bson.D) (Env, error) {
	env := Env{Now: now}
	if len(let) == 0 {
		return env, nil
	}
	vars := aggregate.NewVars(now)
	env.Let = make(bson.D, 0, len(let))
	for _, e := range let {
		x, err := aggregate.Compile(e.Value)
		if err != nil {
			return Env{}, err
		}
		v, err := x.Eval(vars, bson.D{})
		if err != nil {
			return Env{}, err
		}
		if aggregate.IsMissing(v) {
			v = nil
		}
		env.Let = append(env.Let, bson.E{Key: e.Key, Value: v})
	}
	return env, nil
}

// WithCollation returns env comparing strings by the collation spec (nil
// or {locale: "simple"} for the binary comparison).
func (env Env) WithCollation(spec bson.D) (Env, error) {
	c, err := collation.Parse(spec)
	if err != nil {
		return Env{}, err
	}
	env.Collation = c
	return env, nil
}

// ParseQuery parses a client's query filter, allowing $expr evaluated with
// env.
func ParseQuery(d bson.D, env Env) (*Filter, error) {
	if env.Collation != nil {
		d = collation.Filter(env.Collation, d)
	}
	q, err := query.ParseFilterWith(d, query.ParseOptions{Expr: env.Compiler()})
	if err != nil {
		return nil, err
	}
	return &Filter{Q: q, coll: env.Collation}, nil
}

// Names returns the names of env's let variables.
func (env Env) Names() []string {
	names := make([]string, 0, len(env.Let))
	for _, e := range env.Let {
		names = append(names, e.Key)
	}
	return names
}

// Compiler returns the $expr compiler for env.
func (env Env) Compiler() query.ExprCompiler {
	names := env.Names()
	return func(expr any) (func(doc bson.D) (bool, error), error) {
		x, err := aggregate.CompileWith(expr, aggregate.CompileOptions{Vars: names})
		if err != nil {
			return nil, err
		}
		vars := env.Vars()
		if env.Collation != nil {
			vars = vars.WithCollation(env.Collation)
		}
		return func(doc bson.D) (bool, error) {
			v, err := x.Eval(vars, collation.Original(doc))
			if err != nil {
				return false, err
			}
			if aggregate.IsMissing(v) {
				return false, nil
			}
			return query.Truthy(v), nil
		}, nil
	}
}

// Vars returns the aggregation variables of env.
func (env Env) Vars() *aggregate.Vars {
	v := aggregate.NewVars(env.Now)
	for _, e := range env.Let {
		v = v.Bind(e.Key, e.Value)
	}
	return v
}

// Matches reports whether doc satisfies the filter; a nil filter matches
// everything.
func (f *Filter) Matches(doc bson.D) bool {
	if f == nil {
		return true
	}
	if f.coll != nil {
		doc = f.coll.Matchable(doc)
	}
	return f.Q.Match(doc)
}

// Eval matches doc, returning $expr evaluation errors and the positional
// array index.
func (f *Filter) Eval(doc bson.D) (query.MatchResult, error) {
	if f == nil {
		return query.MatchResult{Matched: true, ArrayIndex: -1}, nil
	}
	if f.coll != nil {
		doc = f.coll.Matchable(doc)
	}
	return f.Q.Eval(doc)
}

// ValidationDetails explains why doc fails a validator (errInfo.details).
func ValidationDetails(f *Filter, doc bson.D) (bson.D, bool) {
	d := f.Q.ValidationDetails(doc)
	return d, len(d) > 0
}
