package aggregate

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Iterator yields documents one at a time.
type Iterator interface {
	// Next returns the next document; ok is false at the end. After an
	// error or the end, Next keeps returning the same result.
	Next(ctx context.Context) (doc bson.D, ok bool, err error)
	// Close releases the iterator's resources. It is safe to call twice.
	Close() error
}

// Resolver lets $lookup, $graphLookup and $merge read other collections.
// The caller (docdb) implements it over its storage; tests use an
// in-memory one.
type Resolver interface {
	// Scan returns an iterator over the documents of db.coll that match
	// filter (nil or empty: all documents). The filter is a hint the
	// implementation may use to pick an index: Scan may return documents
	// that do not match, because the pipeline applies the filter again.
	// A collection that does not exist yields no documents. Expired
	// documents must not be returned. The filter compares strings by the
	// collation c (nil: bytewise), the pipeline's: MongoDB matches the
	// foreign documents of $lookup, $graphLookup and $unionWith by the
	// command's collation, not the foreign collection's default.
	Scan(ctx context.Context, db, coll string, filter bson.D, c *collation.Collator) (Iterator, error)
}

// Writer lets $merge and $out write their results.
type Writer interface {
	// Insert inserts doc into db.coll (creating the collection). A
	// duplicate key is reported as a *mongoerr.Error with DuplicateKey.
	Insert(ctx context.Context, db, coll string, doc bson.D) error
	// Replace replaces the document of db.coll whose _id is id with doc.
	Replace(ctx context.Context, db, coll string, id any, doc bson.D) error
	// ReplaceCollection atomically replaces the contents of db.coll with
	// docs ($out).
	ReplaceCollection(ctx context.Context, db, coll string, docs []bson.D) error
}

// Env is what a pipeline needs from its caller at run time.
type Env struct {
	// DB is the database the pipeline runs in ($lookup's from names a
	// collection of this database).
	DB string
	// Resolver reads other collections; nil makes $lookup, $graphLookup
	// and $merge fail.
	Resolver Resolver
	// Writer receives $merge and $out output; nil makes them fail.
	Writer Writer
	// Vars holds $$NOW and the command's let variables; nil means NOW is
	// the zero time.
	Vars *Vars
	// Rand returns a non-negative pseudo-random int64 for $sample; nil
	// uses a generator seeded from $$NOW.
	Rand func() int64
	// Expired reports whether a document of the pipeline's input has
	// expired since it was read (strict visibility); nil when documents
	// never expire. A stage that holds input documents back unchanged
	// ($sort, $sample) asks it as it hands each one out, as long as every
	// stage before it passes its input documents through unchanged.
	Expired func(doc bson.D) bool
	// Collation is the command's collation (nil for the simple binary
	// one): $match filters, $sort orders, $group (with $sortByCount and
	// $bucket) groups and the comparison operators compare strings by it,
	// and so do the sub-pipelines and the foreign matches of $lookup,
	// $graphLookup, $unionWith and $facet.
	Collation *collation.Collator
	// SortMemory bounds the memory of $sort, GroupMemory that of $group
	// (and $bucket, $sortByCount); the zero value runs in memory without a
	// bound.
	SortMemory, GroupMemory MemoryLimit
}

// MemoryLimit bounds a blocking stage's memory: past Limit bytes it spills
// sorted runs to files in Dir when AllowDisk is set, and fails with
// QueryExceededMemoryLimitNoDiskUseAllowed otherwise.
type MemoryLimit struct {
	Limit     int64
	AllowDisk bool
	Dir       string
}

// Options configures Parse.
type Options struct {
	// Vars names the variables defined around the pipeline (a command's
	// let, or the let of an enclosing $lookup).
	Vars []string
	// Now is $$NOW for $match stages with $expr, when known at parse
	// time (otherwise it comes from Env.Vars at run time).
	Now time.Time
	// inLookup and inFacet mark sub-pipelines.
	inLookup bool
	inFacet  bool
}

// stage is one parsed pipeline stage.
type stage interface {
	// name returns the stage name ("$match").
	name() string
	// run wraps the input iterator.
	run(ctx context.Context, in Iterator, env *Env) (Iterator, error)
}

// Pipeline is a parsed aggregation pipeline. It is immutable and safe for
// concurrent use.
type Pipeline struct {
	stages []stage
	spec   bson.A
	opts   Options
}

// stageParsers maps stage names to their parsers (filled by the stage
// files).
var stageParsers = map[string]func(arg any, opts Options) (stage, error){}

// IsStage reports whether name is an aggregation stage ("$match", ...).
func IsStage(name string) bool {
	_, ok := stageParsers[name]
	return ok
}

// Parse parses a pipeline: an array of one-field stage documents.
func Parse(pipeline bson.A, opts Options) (*Pipeline, error) {
	p := &Pipeline{spec: pipeline, opts: opts}
	for i, s := range pipeline {
		d, ok := s.(bson.D)
		if !ok {
			if m, isM := s.(bson.M); isM {
				d, _ = asDoc(m)
			} else {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "Each element of the 'pipeline' array must be an object")
			}
		}
		if len(d) != 1 {
			return nil, mongoerr.Newf(mongoerr.Location40323, "A pipeline stage specification object must contain exactly one field.")
		}
		name := d[0].Key
		if name == "$changeStream" {
			// Change streams read a replica set's oplog; a standalone
			// server has none.
			return nil, mongoerr.New(mongoerr.Location40573, "The $changeStream stage is only supported on replica sets")
		}
		if name == "$changeStreamSplitLargeEvent" {
			// The stage splits change events; a change stream parses it.
			if arg, ok := d[0].Value.(bson.D); !ok || len(arg) != 0 {
				return nil, mongoerr.New(mongoerr.Location7182800, "$changeStreamSplitLargeEvent spec should be an empty object")
			}
			return nil, mongoerr.New(mongoerr.IllegalOperation, "$changeStreamSplitLargeEvent can only be used in a $changeStream pipeline")
		}
		parse, ok := stageParsers[name]
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40324, "Unrecognized pipeline stage name: '%s'", name)
		}
		st, err := parse(d[0].Value, opts)
		if err != nil {
			return nil, err
		}
		switch name {
		case "$out", "$merge":
			if i != len(pipeline)-1 {
				return nil, mongoerr.Newf(mongoerr.Location40601, "%s can only be the final stage in the pipeline", name)
			}
			if opts.inLookup {
				return nil, mongoerr.Newf(mongoerr.Location51047, "%s is not allowed within a $lookup's sub-pipeline", name)
			}
			if opts.inFacet {
				return nil, mongoerr.Newf(mongoerr.Location40600, "%s is not allowed to be used within a $facet stage", name)
			}
		case "$documents":
			if i != 0 {
				return nil, mongoerr.New(mongoerr.Location40602, "$documents is only valid as the first stage in a pipeline")
			}
		case "$facet":
			if opts.inFacet {
				return nil, mongoerr.New(mongoerr.Location40600, "$facet is not allowed to be used within a $facet stage")
			}
		}
		// $sort followed by $limit keeps only the top documents.
		if lim, ok := st.(*limitStage); ok && len(p.stages) > 0 {
			if srt, ok := p.stages[len(p.stages)-1].(*sortStage); ok && (srt.limit < 0 || lim.n < srt.limit) {
				srt.limit = lim.n
			}
		}
		p.stages = append(p.stages, st)
	}
	return p, nil
}

// Spec returns the pipeline array the Pipeline was parsed from.
func (p *Pipeline) Spec() bson.A { return p.spec }

// Len returns the number of stages.
func (p *Pipeline) Len() int { return len(p.stages) }

// StageNames returns the stage names in order.
func (p *Pipeline) StageNames() []string {
	out := make([]string, len(p.stages))
	for i, s := range p.stages {
		out[i] = s.name()
	}
	return out
}

// LeadingMatch returns the filter of the $match stages at the start of the
// pipeline (combined with $and when there are several; nil when there is
// none) and the pipeline of the remaining stages. A caller that can answer
// the filter from an index runs the remainder over the matching documents
// instead of the whole pipeline over the collection.
func (p *Pipeline) LeadingMatch() (bson.D, *Pipeline) {
	var filters bson.A
	i := 0
	for ; i < len(p.stages); i++ {
		m, ok := p.stages[i].(*matchStage)
		if !ok {
			break
		}
		filters = append(filters, m.spec)
	}
	rest := &Pipeline{stages: p.stages[i:], spec: p.spec[i:], opts: p.opts}
	switch len(filters) {
	case 0:
		return nil, rest
	case 1:
		return filters[0].(bson.D), rest
	}
	return bson.D{{Key: "$and", Value: filters}}, rest
}

// Output returns the target of a final $out or $merge stage, if any.
func (p *Pipeline) Output() (db, coll string, ok bool) {
	if len(p.stages) == 0 {
		return "", "", false
	}
	switch s := p.stages[len(p.stages)-1].(type) {
	case *mergeStage:
		return s.db, s.coll, true
	case *outStage:
		return s.db, s.coll, true
	}
	return "", "", false
}

// Run runs the pipeline over in and returns the output iterator. Stages
// that can stream do; $sort, $group, $bucket, $facet, $count and $sample
// consume their input first. The context is checked between documents.
// Closing the returned iterator closes in.
func (p *Pipeline) Run(ctx context.Context, in Iterator, env Env) (Iterator, error) {
	if env.Vars == nil {
		env.Vars = NewVars(p.opts.Now)
	}
	if env.Collation != nil {
		env.Vars = env.Vars.WithCollation(env.Collation)
	}
	it := in
	for _, s := range p.stages {
		stageEnv := env
		next, err := s.run(ctx, it, &stageEnv)
		if err != nil {
			it.Close()
			return nil, err
		}
		it = next
		if !keepsDocuments(s) {
			env.Expired = nil
		}
	}
	return it, nil
}

// KeepsDocuments reports whether the pipeline outputs input documents
// unchanged (only $match, $sort, $limit, $skip and $sample), so that an
// output document can still expire like the document it is.
func (p *Pipeline) KeepsDocuments() bool {
	for _, s := range p.stages {
		if !keepsDocuments(s) {
			return false
		}
	}
	return true
}

// keepsDocuments reports whether s passes input documents through
// unchanged.
func keepsDocuments(s stage) bool {
	switch s.(type) {
	case *matchStage, *sortStage, *limitStage, *skipStage, *sampleStage:
		return true
	}
	return false
}

// Collect runs the pipeline over docs and returns all results.
func (p *Pipeline) Collect(ctx context.Context, docs []bson.D, env Env) ([]bson.D, error) {
	it, err := p.Run(ctx, SliceIterator(docs), env)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	return Drain(ctx, it)
}

// ApplyOne runs the pipeline over the single document doc and returns the
// single document it yields, as a pipeline-style update does. vars supplies
// $$NOW and let variables.
func (p *Pipeline) ApplyOne(ctx context.Context, doc bson.D, vars *Vars) (bson.D, error) {
	out, err := p.Collect(ctx, []bson.D{doc}, Env{Vars: vars})
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, mongoerr.Newf(mongoerr.InternalError, "update pipeline produced %d documents", len(out))
	}
	return out[0], nil
}

// Drain reads every document of it.
func Drain(ctx context.Context, it Iterator) ([]bson.D, error) {
	var out []bson.D
	for {
		d, ok, err := it.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, d)
	}
}

// SliceIterator returns an iterator over docs.
func SliceIterator(docs []bson.D) Iterator { return &sliceIter{docs: docs} }

type sliceIter struct {
	docs []bson.D
	i    int
}

func (s *sliceIter) Next(ctx context.Context) (bson.D, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if s.i >= len(s.docs) {
		return nil, false, nil
	}
	d := s.docs[s.i]
	s.i++
	return d, true, nil
}

func (s *sliceIter) Close() error { return nil }

// funcIter adapts a next function, closing the input on Close.
type funcIter struct {
	next  func(ctx context.Context) (bson.D, bool, error)
	in    Iterator
	done  bool
	err   error
	close func()
}

func (f *funcIter) Next(ctx context.Context) (bson.D, bool, error) {
	if f.done {
		return nil, false, f.err
	}
	if err := ctx.Err(); err != nil {
		f.done, f.err = true, err
		return nil, false, err
	}
	d, ok, err := f.next(ctx)
	if err != nil || !ok {
		f.done, f.err = true, err
	}
	return d, ok, err
}

func (f *funcIter) Close() error {
	f.done = true
	if f.close != nil {
		f.close()
	}
	if f.in != nil {
		return f.in.Close()
	}
	return nil
}

// mapIter streams in through fn; fn returns ok=false to drop a document.
func mapIter(in Iterator, fn func(ctx context.Context, d bson.D) (bson.D, bool, error)) Iterator {
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		for {
			d, ok, err := in.Next(ctx)
			if err != nil || !ok {
				return nil, false, err
			}
			out, keep, err := fn(ctx, d)
			if err != nil {
				return nil, false, err
			}
			if keep {
				return out, true, nil
			}
		}
	}}
}

// ExprCompiler returns the $expr hook for query.ParseFilterWith: the
// expressions see vars ($$NOW, the let variables and the collation bound in
// vars) and, for a document a collated filter matches, the original
// document (collation.Original).
func ExprCompiler(vars *Vars) query.ExprCompiler {
	if vars == nil {
		vars = &Vars{}
	}
	names := vars.Names()
	return func(expr any) (func(doc bson.D) (bool, error), error) {
		e, err := CompileWith(expr, CompileOptions{Vars: names})
		if err != nil {
			return nil, err
		}
		return func(doc bson.D) (bool, error) {
			r, err := e.Eval(vars.WithRoot(nil), collation.Original(doc))
			if err != nil {
				return false, err
			}
			return truthy(r), nil
		}, nil
	}
}

// ProjectionCompiler returns the hook for query.ProjectionOptions.Expr: the
// computed fields of a find projection evaluated as aggregation
// expressions that see vars ($$NOW, let variables). A Missing result
// leaves the field out.
func ProjectionCompiler(vars *Vars) func(expr any) (query.ComputedField, error) {
	if vars == nil {
		vars = &Vars{}
	}
	names := vars.Names()
	return func(expr any) (query.ComputedField, error) {
		e, err := CompileWith(expr, CompileOptions{Vars: names})
		if err != nil {
			return nil, err
		}
		return func(doc bson.D) (any, bool, error) {
			r, err := e.Eval(vars.WithRoot(nil), collation.Original(doc))
			if err != nil {
				return nil, false, err
			}
			if IsMissing(r) {
				return nil, false, nil
			}
			return r, true, nil
		}, nil
	}
}
