package update

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// UpsertSeed builds the document an upsert starts from: the equality
// conditions of the query filter, as MongoDB extracts them. Top-level
// fields compared by value ({a: 1}, {a: {$eq: 1}}, {a: {$in: [1]}}), and
// the same inside top-level $and (and a single-clause $or) count; dotted
// paths create embedded documents; _id comes first and the other fields
// follow in path order. Operators other than equality, regular expressions
// and $expr contribute nothing. When onlyID is true (replacement upserts),
// only _id is taken. Paths matched twice are NotSingleValueField (54).
//
// The caller applies the update to the result with ApplyContext.Insert
// set, then adds a generated _id if the document still has none.
func UpsertSeed(filter bson.D, onlyID bool) (bson.D, error) {
	eq := map[string]any{}
	if err := collectEqualities(filter, eq); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(eq))
	for p := range eq {
		if onlyID && p != "_id" && !strings.HasPrefix(p, "_id.") {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i := 1; i < len(paths); i++ {
		if strings.HasPrefix(paths[i], paths[i-1]+".") {
			return nil, mongoerr.Newf(mongoerr.NotSingleValueField, "cannot infer query fields to set, both paths '%s' and '%s' are matched", paths[i], paths[i-1])
		}
	}
	out := bson.D{}
	for _, p := range paths {
		var err error
		out, err = setDotted(out, strings.Split(p, "."), eq[p])
		if err != nil {
			return nil, err
		}
	}
	for i, e := range out {
		if e.Key == "_id" && i > 0 {
			out = append(bson.D{e}, append(out[:i:i], out[i+1:]...)...)
			break
		}
	}
	return out, nil
}

// collectEqualities records the equality conditions of filter in eq.
func collectEqualities(filter bson.D, eq map[string]any) error {
	add := func(path string, v any) error {
		if _, dup := eq[path]; dup {
			return mongoerr.Newf(mongoerr.NotSingleValueField, "cannot infer query fields to set, path '%s' is matched twice", path)
		}
		eq[path] = v
		return nil
	}
	for _, e := range filter {
		switch e.Key {
		case "$and":
			clauses, _ := e.Value.(bson.A)
			for _, c := range clauses {
				if d, ok := c.(bson.D); ok {
					if err := collectEqualities(d, eq); err != nil {
						return err
					}
				}
			}
			continue
		case "$or":
			clauses, _ := e.Value.(bson.A)
			if len(clauses) == 1 {
				if d, ok := clauses[0].(bson.D); ok {
					if err := collectEqualities(d, eq); err != nil {
						return err
					}
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			continue
		}
		switch v := e.Value.(type) {
		case bson.Regex:
			continue
		case bson.D:
			if len(v) > 0 && strings.HasPrefix(v[0].Key, "$") {
				for _, op := range v {
					switch op.Key {
					case "$eq":
						if _, isRe := op.Value.(bson.Regex); isRe {
							continue
						}
						if err := add(e.Key, op.Value); err != nil {
							return err
						}
					case "$in":
						if list, ok := op.Value.(bson.A); ok && len(list) == 1 {
							if _, isRe := list[0].(bson.Regex); !isRe {
								if err := add(e.Key, list[0]); err != nil {
									return err
								}
							}
						}
					}
				}
				continue
			}
		}
		if err := add(e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

// setDotted sets a dotted path in d, creating documents on the way.
func setDotted(d bson.D, parts []string, v any) (bson.D, error) {
	if len(parts) == 1 {
		return setField(d, parts[0], v), nil
	}
	cur, ok := lookup(d, parts[0])
	var sub bson.D
	if ok {
		s, isDoc := cur.(bson.D)
		if !isDoc {
			return nil, cannotCreate(parts[1], parts[0], cur)
		}
		sub = s
	}
	sub, err := setDotted(sub, parts[1:], v)
	if err != nil {
		return nil, err
	}
	return setField(d, parts[0], sub), nil
}
