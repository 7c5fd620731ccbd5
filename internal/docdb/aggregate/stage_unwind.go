package aggregate

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	stageParsers["$unwind"] = parseUnwind
	stageParsers["$facet"] = parseFacet
}

// unwindStage outputs one document per element of an array field.
type unwindStage struct {
	path       []string
	indexField []string
	preserve   bool
}

func (s *unwindStage) name() string { return "$unwind" }

func parseUnwind(arg any, _ Options) (stage, error) {
	s := &unwindStage{}
	var path string
	switch x := arg.(type) {
	case string:
		path = x
	case bson.D:
		for _, e := range x {
			switch e.Key {
			case "path":
				p, ok := e.Value.(string)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.Location28808, "expected a string as the path for $unwind stage, got %s", TypeName(e.Value))
				}
				path = p
			case "includeArrayIndex":
				p, ok := e.Value.(string)
				if !ok || p == "" {
					return nil, mongoerr.Newf(mongoerr.Location28810, "expected a non-empty string for the includeArrayIndex  option to $unwind stage")
				}
				if strings.HasPrefix(p, "$") {
					return nil, mongoerr.Newf(mongoerr.Location28822, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': %s", p)
				}
				parts, err := splitPath(p)
				if err != nil {
					return nil, err
				}
				s.indexField = parts
			case "preserveNullAndEmptyArrays":
				b, ok := e.Value.(bool)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.Location28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s", TypeName(e.Value))
				}
				s.preserve = b
			default:
				return nil, mongoerr.Newf(mongoerr.Location28811, "unrecognized option to $unwind stage: %s", e.Key)
			}
		}
		if path == "" {
			return nil, mongoerr.New(mongoerr.Location28812, "no path specified to $unwind stage")
		}
	default:
		return nil, mongoerr.Newf(mongoerr.Location15981, "expected either a string or an object as specification for $unwind stage, got %s", TypeName(arg))
	}
	if !strings.HasPrefix(path, "$") {
		return nil, mongoerr.Newf(mongoerr.Location28818, "path option to $unwind stage should be prefixed with a '$': %s", path)
	}
	parts, err := splitPath(path[1:])
	if err != nil {
		return nil, err
	}
	s.path = parts
	return s, nil
}

// getNested reads a path without array traversal.
func getNested(d bson.D, parts []string) (any, bool) {
	var cur any = d
	for _, p := range parts {
		cd, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		v, ok := lookupField(cd, p)
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// setNested returns a copy of d with the path set to v, creating (or
// replacing non-document values with) documents on the way.
func setNested(d bson.D, parts []string, v any) bson.D {
	out := make(bson.D, len(d))
	copy(out, d)
	if len(parts) == 1 {
		return setField(out, parts[0], v)
	}
	cur, _ := lookupField(out, parts[0])
	sub, ok := cur.(bson.D)
	if !ok {
		sub = bson.D{}
	}
	return setField(out, parts[0], setNested(sub, parts[1:], v))
}

// removeNested returns a copy of d without the path.
func removeNested(d bson.D, parts []string) bson.D {
	out := make(bson.D, len(d))
	copy(out, d)
	if len(parts) == 1 {
		return removeField(out, parts[0])
	}
	cur, _ := lookupField(out, parts[0])
	sub, ok := cur.(bson.D)
	if !ok {
		return out
	}
	return setField(out, parts[0], removeNested(sub, parts[1:]))
}

func (s *unwindStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var cur bson.D
	var arr bson.A
	idx := 0
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		for {
			if cur != nil && idx < len(arr) {
				out := setNested(cur, s.path, arr[idx])
				if s.indexField != nil {
					out = setNested(out, s.indexField, int64(idx))
				}
				idx++
				return out, true, nil
			}
			cur, arr = nil, nil
			d, ok, err := in.Next(ctx)
			if err != nil || !ok {
				return nil, false, err
			}
			v, exists := getNested(d, s.path)
			a, isArr := v.(bson.A)
			switch {
			case isArr && len(a) > 0:
				cur, arr, idx = d, a, 0
			case isArr || !exists || v == nil:
				if !s.preserve {
					continue
				}
				out := d
				if isArr {
					out = removeNested(d, s.path)
				}
				if s.indexField != nil {
					out = setNested(out, s.indexField, nil)
				}
				return out, true, nil
			default:
				out := d
				if s.indexField != nil {
					out = setNested(out, s.indexField, nil)
				}
				return out, true, nil
			}
		}
	}}, nil
}

// facetStage runs several sub-pipelines over the same input.
type facetStage struct {
	names []string
	pipes []*Pipeline
}

func (s *facetStage) name() string { return "$facet" }

func parseFacet(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok || len(d) == 0 {
		return nil, mongoerr.New(mongoerr.Location40169, "the $facet specification must be a non-empty object")
	}
	s := &facetStage{}
	sub := opts
	sub.inFacet = true
	for _, e := range d {
		if err := validateFieldName(e.Key); err != nil {
			return nil, err
		}
		a, ok := asArray(e.Value)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40170, "arguments to $facet must be arrays, %s is type %s", e.Key, TypeName(e.Value))
		}
		if len(a) == 0 {
			return nil, mongoerr.Newf(mongoerr.Location40171, "sub-pipeline in $facet stage cannot be empty: %s", e.Key)
		}
		p, err := Parse(a, sub)
		if err != nil {
			return nil, err
		}
		s.names = append(s.names, e.Key)
		s.pipes = append(s.pipes, p)
	}
	return s, nil
}

func (s *facetStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
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
		out := bson.D{}
		for i, p := range s.pipes {
			res, err := p.Collect(ctx, docs, *env)
			if err != nil {
				return nil, false, err
			}
			arr := make(bson.A, len(res))
			for j, r := range res {
				arr[j] = r
			}
			out = append(out, bson.E{Key: s.names[i], Value: arr})
		}
		return out, true, nil
	}}, nil
}
