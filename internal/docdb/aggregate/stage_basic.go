package aggregate

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

func init() {
	stageParsers["$match"] = parseMatch
	stageParsers["$limit"] = parseLimit
	stageParsers["$skip"] = parseSkip
	stageParsers["$count"] = parseCount
	stageParsers["$replaceRoot"] = parseReplaceRoot
	stageParsers["$replaceWith"] = parseReplaceWith
	stageParsers["$sample"] = parseSample
}

// matchStage filters documents with a query filter.
type matchStage struct {
	spec    bson.D
	filter  *query.Filter
	hasExpr bool
	opts    Options
}

func (s *matchStage) name() string { return "$match" }

func parseMatch(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.New(mongoerr.Location15959, "the match filter must be an expression in an object")
	}
	s := &matchStage{spec: d, opts: opts}
	f, err := query.ParseFilterWith(d, query.ParseOptions{Expr: func(expr any) (func(bson.D) (bool, error), error) {
		s.hasExpr = true
		e, err := CompileWith(expr, CompileOptions{Vars: opts.Vars})
		if err != nil {
			return nil, err
		}
		now := opts.Now
		return func(doc bson.D) (bool, error) {
			r, err := e.Eval(NewVars(now), doc)
			if err != nil {
				return false, err
			}
			return truthy(r), nil
		}, nil
	}})
	if err != nil {
		return nil, err
	}
	s.filter = f
	return s, nil
}

// filterFor returns the filter with $expr bound to the run's variables,
// comparing strings by the run's collation (collation.Filter).
func (s *matchStage) filterFor(env *Env) (*query.Filter, error) {
	if env.Collation != nil {
		// The filter's constants and the documents are mapped to
		// collation keys; its $expr sees the original document and
		// compares by the collation of env.Vars.
		return query.ParseFilterWith(collation.Filter(env.Collation, s.spec), query.ParseOptions{Expr: ExprCompiler(env.Vars)})
	}
	if !s.hasExpr {
		return s.filter, nil
	}
	return query.ParseFilterWith(s.spec, query.ParseOptions{Expr: ExprCompiler(env.Vars)})
}

func (s *matchStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	f, err := s.filterFor(env)
	if err != nil {
		return nil, err
	}
	coll := env.Collation
	return mapIter(in, func(_ context.Context, d bson.D) (bson.D, bool, error) {
		md := d
		if coll != nil {
			md = coll.Matchable(d)
		}
		r, err := f.Eval(md)
		if err != nil {
			return nil, false, err
		}
		return d, r.Matched, nil
	}), nil
}

// positiveInt64 parses the numeric argument of $limit, $skip and $sample.
func nonNegInt(arg any) (int64, bool) {
	if !isNumber(arg) || !isIntegral(arg) {
		return 0, false
	}
	if classify(arg) == numDouble && (toFloat(arg) > 9.2e18 || toFloat(arg) < -9.2e18) {
		return 0, false
	}
	return toInt64(arg), true
}

// limitStage passes at most n documents.
type limitStage struct{ n int64 }

func (s *limitStage) name() string { return "$limit" }

func parseLimit(arg any, _ Options) (stage, error) {
	n, ok := nonNegInt(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location15957, "the limit must be specified as a number")
	}
	if n <= 0 {
		return nil, mongoerr.Newf(mongoerr.Location15958, "the limit must be positive")
	}
	return &limitStage{n: n}, nil
}

func (s *limitStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var seen int64
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if seen >= s.n {
			return nil, false, nil
		}
		d, ok, err := in.Next(ctx)
		if ok {
			seen++
		}
		return d, ok, err
	}}, nil
}

// skipStage drops the first n documents.
type skipStage struct{ n int64 }

func (s *skipStage) name() string { return "$skip" }

func parseSkip(arg any, _ Options) (stage, error) {
	n, ok := nonNegInt(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location15972, "Argument to $skip must be a number not a %s", TypeName(arg))
	}
	if n < 0 {
		return nil, mongoerr.Newf(mongoerr.Location15956, "Argument to $skip cannot be negative")
	}
	return &skipStage{n: n}, nil
}

func (s *skipStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var skipped int64
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		for skipped < s.n {
			_, ok, err := in.Next(ctx)
			if err != nil || !ok {
				return nil, false, err
			}
			skipped++
		}
		return in.Next(ctx)
	}}, nil
}

// countStage outputs {field: n} (nothing when n is 0).
type countStage struct{ field string }

func (s *countStage) name() string { return "$count" }

func parseCount(arg any, _ Options) (stage, error) {
	f, ok := arg.(string)
	if !ok || f == "" {
		return nil, mongoerr.New(mongoerr.Location40156, "the count field must be a non-empty string")
	}
	if strings.HasPrefix(f, "$") {
		return nil, mongoerr.New(mongoerr.Location40158, "the count field cannot be a $-prefixed path")
	}
	if strings.Contains(f, ".") {
		return nil, mongoerr.New(mongoerr.Location40160, "the count field cannot contain '.'")
	}
	if strings.ContainsRune(f, 0) {
		return nil, mongoerr.New(mongoerr.Location40159, "the count field cannot contain a null byte")
	}
	return &countStage{field: f}, nil
}

func (s *countStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	done := false
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if done {
			return nil, false, nil
		}
		done = true
		var n int64
		for {
			_, ok, err := in.Next(ctx)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				break
			}
			n++
		}
		if n == 0 {
			return nil, false, nil
		}
		return bson.D{{Key: s.field, Value: intResult(n, numInt)}}, true, nil
	}}, nil
}

// replaceRootStage replaces each document with an expression's value.
type replaceRootStage struct {
	stageName string
	expr      evalFn
}

func (s *replaceRootStage) name() string { return s.stageName }

func parseReplaceRoot(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40228, "expected an object as specification for $replaceRoot stage, got %s", TypeName(arg))
	}
	var newRoot any
	found := false
	for _, e := range d {
		if e.Key != "newRoot" {
			return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field '$replaceRoot.%s' is an unknown field.", e.Key)
		}
		newRoot, found = e.Value, true
	}
	if !found {
		return nil, mongoerr.New(mongoerr.IDLFailedToParse, "BSON field '$replaceRoot.newRoot' is missing but a required field")
	}
	f, err := newCompiler(opts.Vars).compile(newRoot)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{stageName: "$replaceRoot", expr: f}, nil
}

func parseReplaceWith(arg any, opts Options) (stage, error) {
	f, err := newCompiler(opts.Vars).compile(arg)
	if err != nil {
		return nil, err
	}
	return &replaceRootStage{stageName: "$replaceWith", expr: f}, nil
}

func (s *replaceRootStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	return mapIter(in, func(_ context.Context, d bson.D) (bson.D, bool, error) {
		v, err := s.expr(env.Vars.WithRoot(d), d)
		if err != nil {
			return nil, false, err
		}
		nd, ok := v.(bson.D)
		if !ok {
			return nil, false, mongoerr.Newf(mongoerr.Location40228, "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'. Input document: %s", fmtValue(v), TypeName(v), fmtValue(d))
		}
		return nd, true, nil
	}), nil
}

// sampleStage picks size random documents (reservoir sampling).
type sampleStage struct{ size int64 }

func (s *sampleStage) name() string { return "$sample" }

func parseSample(arg any, _ Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.New(mongoerr.Location28745, "the $sample stage specification must be an object")
	}
	var size int64 = -1
	for _, e := range d {
		if e.Key != "size" {
			return nil, mongoerr.Newf(mongoerr.Location28748, "unrecognized option to $sample: %s", e.Key)
		}
		n, ok := nonNegInt(e.Value)
		if !ok {
			return nil, mongoerr.New(mongoerr.Location28746, "size argument to $sample must be a number")
		}
		if n < 0 {
			return nil, mongoerr.New(mongoerr.Location28747, "size argument to $sample must not be negative")
		}
		size = n
	}
	if size < 0 {
		return nil, mongoerr.New(mongoerr.Location28749, "$sample stage must specify a size")
	}
	return &sampleStage{size: size}, nil
}

func (s *sampleStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	rnd := env.Rand
	if rnd == nil {
		// Seeded from $$NOW so each command samples differently while a
		// test with a fixed clock stays reproducible.
		state := uint64(0x9E3779B97F4A7C15) ^ uint64(env.Vars.Now.UnixNano())
		if state == 0 {
			state = 1
		}
		rnd = func() int64 {
			state ^= state << 13
			state ^= state >> 7
			state ^= state << 17
			return int64(state >> 1)
		}
	}
	draw := func(n int64) int64 {
		r := rnd() % n
		if r < 0 {
			r += n
		}
		return r
	}
	var out []bson.D
	loaded := false
	i := 0
	expired := env.Expired
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			var n int64
			for {
				d, ok, err := in.Next(ctx)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					break
				}
				n++
				if int64(len(out)) < s.size {
					out = append(out, d)
				} else if j := draw(n); j < s.size {
					out[j] = d
				}
			}
			for k := len(out) - 1; k > 0; k-- {
				j := int(draw(int64(k + 1)))
				out[k], out[j] = out[j], out[k]
			}
		}
		for i < len(out) {
			d := out[i]
			i++
			// Re-check: the document may have expired since it was drawn.
			if expired != nil && expired(d) {
				continue
			}
			return d, true, nil
		}
		return nil, false, nil
	}}, nil
}
