package docdb

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// filter is a parsed query filter (query.Filter) ready to match documents.
type filter struct {
	q *query.Filter
}

// parseFilter parses a filter without $expr (partial index filters and
// stored validators parse this way).
func parseFilter(d bson.D) (*filter, error) {
	q, err := query.ParseFilter(d)
	if err != nil {
		return nil, err
	}
	return &filter{q: q}, nil
}

// exprEnv is what $expr sees: $$NOW and the command's let variables.
type exprEnv struct {
	now time.Time
	let bson.D
}

// parseQuery parses a client's query filter, allowing $expr evaluated with
// env.
func parseQuery(d bson.D, env exprEnv) (*filter, error) {
	q, err := query.ParseFilterWith(d, query.ParseOptions{Expr: env.compiler()})
	if err != nil {
		return nil, err
	}
	return &filter{q: q}, nil
}

// compiler returns the $expr compiler for env.
func (env exprEnv) compiler() query.ExprCompiler {
	names := make([]string, 0, len(env.let))
	for _, e := range env.let {
		names = append(names, e.Key)
	}
	return func(expr any) (func(doc bson.D) (bool, error), error) {
		x, err := aggregate.CompileWith(expr, aggregate.CompileOptions{Vars: names})
		if err != nil {
			return nil, err
		}
		vars := env.vars()
		return func(doc bson.D) (bool, error) {
			v, err := x.Eval(vars, doc)
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

// vars returns the aggregation variables of env.
func (env exprEnv) vars() *aggregate.Vars {
	v := aggregate.NewVars(env.now)
	for _, e := range env.let {
		v = v.Bind(e.Key, e.Value)
	}
	return v
}

// matches reports whether doc satisfies the filter; a nil filter matches
// everything.
func (f *filter) matches(doc bson.D) bool {
	if f == nil {
		return true
	}
	return f.q.Match(doc)
}

// eval matches doc, returning $expr evaluation errors and the positional
// array index.
func (f *filter) eval(doc bson.D) (query.MatchResult, error) {
	if f == nil {
		return query.MatchResult{Matched: true, ArrayIndex: -1}, nil
	}
	return f.q.Eval(doc)
}

// validationDetails explains why doc fails a validator (errInfo.details).
func validationDetails(f *filter, doc bson.D) (bson.D, bool) {
	d := f.q.ValidationDetails(doc)
	return d, len(d) > 0
}
