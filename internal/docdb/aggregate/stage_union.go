package aggregate

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	stageParsers["$unionWith"] = parseUnionWith
	stageParsers["$documents"] = parseDocuments
}

// unionWithStage outputs its input, then the documents of another
// collection (run through an optional pipeline).
type unionWithStage struct {
	coll string
	sub  *Pipeline
}

func (s *unionWithStage) name() string { return "$unionWith" }

func parseUnionWith(arg any, opts Options) (stage, error) {
	s := &unionWithStage{}
	switch x := arg.(type) {
	case string:
		s.coll = x
	case bson.D:
		var pipe bson.A
		for _, e := range x {
			switch e.Key {
			case "coll":
				c, ok := e.Value.(string)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.TypeMismatch, "BSON field '$unionWith.coll' is the wrong type '%s', expected type 'string'", TypeName(e.Value))
				}
				s.coll = c
			case "pipeline":
				a, ok := asArray(e.Value)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.TypeMismatch, "BSON field '$unionWith.pipeline' is the wrong type '%s', expected type 'array'", TypeName(e.Value))
				}
				pipe = a
			default:
				return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field '$unionWith.%s' is an unknown field.", e.Key)
			}
		}
		if s.coll == "" && pipe == nil {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$unionWith stage without explicit collection must have a pipeline with $documents as first stage")
		}
		if pipe != nil {
			sub := opts
			sub.inLookup = true
			p, err := Parse(pipe, sub)
			if err != nil {
				return nil, err
			}
			s.sub = p
		}
	default:
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "the $unionWith stage specification must be an object or string, but found %s", TypeName(arg))
	}
	return s, nil
}

func (s *unionWithStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var other Iterator
	inDone := false
	return &funcIter{in: in, close: func() {
		if other != nil {
			other.Close()
		}
	}, next: func(ctx context.Context) (bson.D, bool, error) {
		if !inDone {
			d, ok, err := in.Next(ctx)
			if err != nil || ok {
				return d, ok, err
			}
			inDone = true
		}
		if other == nil {
			var src Iterator
			if s.coll != "" {
				var hint bson.D
				if s.sub != nil {
					hint = scanHint(s.sub, env.Vars)
				}
				docs, err := scanAll(ctx, env, "", s.coll, hint, false, env.Collation)
				if err != nil {
					return nil, false, err
				}
				src = SliceIterator(docs)
			} else {
				src = SliceIterator(nil)
			}
			if s.sub != nil {
				it, err := s.sub.Run(ctx, src, *env)
				if err != nil {
					return nil, false, err
				}
				src = it
			}
			other = src
		}
		return other.Next(ctx)
	}}, nil
}

// documentsStage ignores its input and outputs literal documents ($documents).
type documentsStage struct{ expr evalFn }

func (s *documentsStage) name() string { return "$documents" }

func parseDocuments(arg any, opts Options) (stage, error) {
	f, err := newCompiler(opts.Vars).compile(arg)
	if err != nil {
		return nil, err
	}
	return &documentsStage{expr: f}, nil
}

func (s *documentsStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var docs bson.A
	loaded := false
	i := 0
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			v, err := s.expr(env.Vars, bson.D{})
			if err != nil {
				return nil, false, err
			}
			a, ok := asArray(v)
			if !ok {
				return nil, false, mongoerr.Newf(mongoerr.Location5858203, "an array is expected")
			}
			docs = a
		}
		if i >= len(docs) {
			return nil, false, nil
		}
		d, ok := docs[i].(bson.D)
		i++
		if !ok {
			return nil, false, mongoerr.New(mongoerr.TypeMismatch, "$documents expects an array of objects")
		}
		return d, true, nil
	}}, nil
}
