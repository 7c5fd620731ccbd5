package aggregate

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	stageParsers["$merge"] = parseMerge
	stageParsers["$out"] = parseOut
}

// mergeStage writes each document into a target collection ($merge).
type mergeStage struct {
	db, coll       string
	on             []string
	whenMatched    string
	matchedPipe    *Pipeline
	letNames       []string
	letExprs       []evalFn
	whenNotMatched string
}

func (s *mergeStage) name() string { return "$merge" }

func parseMerge(arg any, opts Options) (stage, error) {
	s := &mergeStage{on: []string{"_id"}, whenMatched: "merge", whenNotMatched: "insert"}
	if str, ok := arg.(string); ok {
		s.coll = str
		return s, nil
	}
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location51182, "$merge only supports a string or object argument, not %s", TypeName(arg))
	}
	hasInto := false
	var letSpec bson.D
	hasLet := false
	for _, e := range d {
		switch e.Key {
		case "into":
			db, coll, err := namespace("$merge", "into", e.Value)
			if err != nil {
				return nil, err
			}
			s.db, s.coll, hasInto = db, coll, true
		case "on":
			switch x := e.Value.(type) {
			case string:
				s.on = []string{x}
			case bson.A:
				if len(x) == 0 {
					return nil, mongoerr.New(mongoerr.Location51187, "If explicitly specifying $merge.on, must include at least one field")
				}
				s.on = nil
				for _, f := range x {
					fs, ok := f.(string)
					if !ok {
						return nil, mongoerr.Newf(mongoerr.Location51134, "$merge.on array elements must be strings, but found %s", TypeName(f))
					}
					s.on = append(s.on, fs)
				}
			default:
				return nil, mongoerr.Newf(mongoerr.Location51186, "$merge.on must be a string or an array of strings, but found %s", TypeName(e.Value))
			}
		case "whenMatched":
			switch x := e.Value.(type) {
			case string:
				switch x {
				case "replace", "keepExisting", "merge", "fail":
					s.whenMatched = x
				default:
					return nil, mongoerr.Newf(mongoerr.BadValue, "Enumeration value '%s' for field '$merge.whenMatched' is not a valid value.", x)
				}
			case bson.A:
				p, err := Parse(x, Options{Vars: append(append([]string{}, opts.Vars...), "new"), Now: opts.Now})
				if err != nil {
					return nil, err
				}
				s.whenMatched, s.matchedPipe = "pipeline", p
			default:
				return nil, mongoerr.Newf(mongoerr.TypeMismatch, "BSON field '$merge.whenMatched' is the wrong type '%s', expected types '[string, array]'", TypeName(e.Value))
			}
		case "whenNotMatched":
			x, _ := e.Value.(string)
			switch x {
			case "insert", "discard", "fail":
				s.whenNotMatched = x
			default:
				return nil, mongoerr.Newf(mongoerr.BadValue, "Enumeration value '%s' for field '$merge.whenNotMatched' is not a valid value.", fmtValue(e.Value))
			}
		case "let":
			ld, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch, "BSON field '$merge.let' is the wrong type '%s', expected type 'object'", TypeName(e.Value))
			}
			letSpec, hasLet = ld, true
		default:
			return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field '$merge.%s' is an unknown field.", e.Key)
		}
	}
	if !hasInto {
		return nil, mongoerr.New(mongoerr.IDLFailedToParse, "BSON field '$merge.into' is missing but a required field")
	}
	if hasLet {
		if s.matchedPipe == nil {
			return nil, mongoerr.New(mongoerr.Location51199, "Cannot use 'let' variables with 'whenMatched: "+s.whenMatched+"' mode")
		}
		c := newCompiler(opts.Vars)
		for _, le := range letSpec {
			f, err := c.compile(le.Value)
			if err != nil {
				return nil, err
			}
			s.letNames = append(s.letNames, le.Key)
			s.letExprs = append(s.letExprs, f)
		}
	}
	if s.matchedPipe != nil {
		// The pipeline may read the let names; reparse with them known.
		p, err := Parse(s.matchedPipe.spec, Options{Vars: append(append(append([]string{}, opts.Vars...), "new"), s.letNames...), Now: opts.Now})
		if err != nil {
			return nil, err
		}
		s.matchedPipe = p
	}
	return s, nil
}

func (s *mergeStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	if env.Writer == nil || env.Resolver == nil {
		return nil, mongoerr.New(mongoerr.CommandNotSupported, "$merge needs a writer and a resolver")
	}
	db := s.db
	if db == "" {
		db = env.DB
	}
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		for {
			d, ok, err := in.Next(ctx)
			if err != nil || !ok {
				return nil, false, err
			}
			if err := s.mergeOne(ctx, env, db, d); err != nil {
				return nil, false, err
			}
		}
	}}, nil
}

// mergeOne writes one document according to whenMatched/whenNotMatched.
func (s *mergeStage) mergeOne(ctx context.Context, env *Env, db string, d bson.D) error {
	if _, ok := lookupField(d, "_id"); !ok {
		d = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, d...)
	}
	filter := bson.D{}
	for _, f := range s.on {
		v, ok := getNested(d, strings.Split(f, "."))
		if _, isArr := v.(bson.A); !ok || nullish(v) || isArr {
			return mongoerr.Newf(mongoerr.Location51132, "$merge write error: 'on' field '%s' cannot be missing, null, undefined or an array", f)
		}
		filter = append(filter, bson.E{Key: f, Value: bson.D{{Key: "$eq", Value: v}}})
	}
	existing, err := scanAll(ctx, env, db, s.coll, filter, true, nil)
	if err != nil {
		return err
	}
	if len(existing) > 1 {
		return mongoerr.Newf(mongoerr.Location51183, "$merge found multiple documents matching the 'on' fields in the target collection")
	}
	if len(existing) == 0 {
		switch s.whenNotMatched {
		case "insert":
			return env.Writer.Insert(ctx, db, s.coll, d)
		case "discard":
			return nil
		}
		return mongoerr.New(mongoerr.MergeStageNoMatchingDocument, "$merge could not find a matching document in the target collection for at least one document in the source collection")
	}
	old := existing[0]
	id, _ := lookupField(old, "_id")
	var out bson.D
	switch s.whenMatched {
	case "keepExisting":
		return nil
	case "fail":
		return &mongoerr.Error{Code: mongoerr.DuplicateKey, Message: "$merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error collection: " + db + "." + s.coll + " index: _id_ dup key: { _id: " + fmtValue(id) + " }",
			Info: map[string]any{"keyPattern": bson.D{{Key: "_id", Value: int32(1)}}, "keyValue": bson.D{{Key: "_id", Value: id}}}}
	case "replace":
		out = setField(cloneDoc(d), "_id", id)
		out = moveIDFirst(out)
	case "merge":
		out = cloneDoc(old)
		for _, e := range d {
			if e.Key == "_id" {
				continue
			}
			out = setField(out, e.Key, e.Value)
		}
	case "pipeline":
		vars := env.Vars.Bind("new", d)
		root := env.Vars.WithRoot(d)
		for i, f := range s.letExprs {
			x, err := f(root, d)
			if err != nil {
				return err
			}
			vars = vars.Bind(s.letNames[i], arrayValue(x))
		}
		res, err := s.matchedPipe.Collect(ctx, []bson.D{old}, Env{DB: env.DB, Vars: vars})
		if err != nil {
			return err
		}
		if len(res) != 1 {
			return mongoerr.Newf(mongoerr.InternalError, "$merge whenMatched pipeline produced %d documents", len(res))
		}
		out = res[0]
		if nid, ok := lookupField(out, "_id"); !ok {
			out = append(bson.D{{Key: "_id", Value: id}}, out...)
		} else if !equal(nid, id) {
			return mongoerr.Newf(mongoerr.ImmutableField, "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'")
		}
	}
	return env.Writer.Replace(ctx, db, s.coll, id, out)
}

func moveIDFirst(d bson.D) bson.D {
	for i, e := range d {
		if e.Key == "_id" {
			if i == 0 {
				return d
			}
			out := bson.D{e}
			out = append(out, d[:i]...)
			return append(out, d[i+1:]...)
		}
	}
	return d
}

// outStage replaces a collection with the pipeline's output ($out).
type outStage struct{ db, coll string }

func (s *outStage) name() string { return "$out" }

func parseOut(arg any, _ Options) (stage, error) {
	db, coll, err := namespace("$out", "$out", arg)
	if err != nil {
		return nil, err
	}
	return &outStage{db: db, coll: coll}, nil
}

func (s *outStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	if env.Writer == nil {
		return nil, mongoerr.New(mongoerr.CommandNotSupported, "$out needs a writer")
	}
	db := s.db
	if db == "" {
		db = env.DB
	}
	done := false
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if done {
			return nil, false, nil
		}
		done = true
		docs, err := Drain(ctx, in)
		if err != nil {
			return nil, false, err
		}
		for i, d := range docs {
			if _, ok := lookupField(d, "_id"); !ok {
				docs[i] = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, d...)
			}
		}
		return nil, false, env.Writer.ReplaceCollection(ctx, db, s.coll, docs)
	}}, nil
}
