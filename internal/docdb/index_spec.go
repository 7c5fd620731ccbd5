package docdb

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Index specs: the equivalence rules that decide between "already exists",
// 85 and 86 for createIndexes specs the wire layer validated.

// maxIndexes is the most indexes a collection may have, _id_ included.
const maxIndexes = 64

// indexRequest is one createIndexes spec, as compared and stored.
type indexRequest struct {
	spec bson.D // as stored and listed: {v, key, name, options...}
	name string
	key  bson.D
}

// fmtDoc renders a document as mongod prints BSON in messages.
func fmtDoc(d bson.D) string { return aggregate.FormatValue(d) }

// request returns the index spec as createIndexes compares and stores it:
// a collation is stored with every field (collation.Full), an index
// without one takes the collection's default collation (meta may be nil
// for a collection not created yet), and {locale: "simple"} is stored as
// no collation.
func (s IndexSpec) request(meta *catalog.CollMeta) (*indexRequest, error) {
	spec := make(bson.D, 0, 4+len(s.Options))
	spec = append(spec, bson.E{Key: "v", Value: int32(2)}, bson.E{Key: "key", Value: s.Key}, bson.E{Key: "name", Value: s.Name})
	hasCollation := false
	for _, e := range s.Options {
		if e.Key != "collation" {
			spec = append(spec, e)
			continue
		}
		hasCollation = true
		d, ok := e.Value.(bson.D)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.TypeMismatch, "The field 'collation' must be an object, but got %s", aggregate.TypeName(e.Value))
		}
		c, err := collation.Parse(d)
		if err != nil {
			return nil, err
		}
		if c != nil {
			spec = append(spec, bson.E{Key: "collation", Value: c.Full()})
		}
	}
	if !hasCollation && meta != nil {
		if c := meta.Collation(); c != nil {
			spec = append(spec, bson.E{Key: "collation", Value: c.Full()})
		}
	}
	return &indexRequest{spec: spec, name: s.Name, key: s.Key}, nil
}

// storedIndexSpec returns a stored spec ({v, key, name, options...}) as an
// IndexSpec, to create the same index elsewhere.
func storedIndexSpec(spec bson.D) IndexSpec {
	var s IndexSpec
	for _, e := range spec {
		switch e.Key {
		case "v", "ns":
		case "key":
			s.Key, _ = e.Value.(bson.D)
		case "name":
			s.Name, _ = e.Value.(string)
		default:
			s.Options = append(s.Options, e)
		}
	}
	return s
}

// CheckPartialFilter checks an index's partialFilterExpression: why is
// MongoDB's reason for refusing an expression a partial index does not
// allow (the caller puts it in its CannotCreateIndex message), err the
// error of a filter that does not parse.
func CheckPartialFilter(d bson.D) (why string, err error) {
	if why := checkPartialFilter(d, 0); why != "" {
		return why, nil
	}
	_, err = match.Parse(d)
	return "", err
}

// checkPartialFilter enforces the expressions MongoDB allows in a partial
// index filter: equality, $exists: true, comparisons, $type, $in, and $and
// or $or of those. It returns mongod's reason for refusing the filter, or
// "" when it is allowed.
func checkPartialFilter(d bson.D, depth int) string {
	unsupported := func(e bson.E) string {
		return "Expression not supported in partial index: " + fmtDoc(bson.D{e})
	}
	for _, e := range d {
		switch e.Key {
		case "$and", "$or":
			if depth > 0 && e.Key == "$and" {
				return unsupported(e)
			}
			arr, ok := e.Value.(bson.A)
			if !ok {
				continue // the query parser reports it
			}
			for _, sub := range arr {
				if sd, ok := sub.(bson.D); ok {
					if why := checkPartialFilter(sd, depth+1); why != "" {
						return why
					}
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			return unsupported(e)
		}
		ops, ok := e.Value.(bson.D)
		if !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
			if _, isRegex := e.Value.(bson.Regex); isRegex {
				return unsupported(e)
			}
			continue // equality
		}
		for _, op := range ops {
			switch op.Key {
			case "$eq", "$gt", "$gte", "$lt", "$lte", "$type", "$in":
			case "$exists":
				if !catalog.Truthy(op.Value) {
					return unsupported(bson.E{Key: e.Key, Value: bson.D{op}})
				}
			default:
				return unsupported(bson.E{Key: e.Key, Value: bson.D{op}})
			}
		}
	}
	return ""
}

// identifying returns the options that make two indexes on the same key
// different indexes (unique, sparse, partialFilterExpression, collation).
func identifying(spec bson.D) bson.D {
	var out bson.D
	for _, e := range spec {
		switch e.Key {
		case "unique", "sparse", "partialFilterExpression", "collation":
			out = append(out, e)
		}
	}
	return out
}

// nonIdentifying returns the options that do not identify an index but are
// part of its definition (expireAfterSeconds, hidden).
func nonIdentifying(spec bson.D) bson.D {
	var out bson.D
	for _, e := range spec {
		switch e.Key {
		case "expireAfterSeconds", "hidden":
			out = append(out, e)
		}
	}
	return out
}

// sameOptions compares two option lists as sets, numbers by value.
func sameOptions(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		v, ok := catalog.FieldOf(b, e.Key)
		if !ok || !catalog.SameValue(e.Value, v) {
			return false
		}
	}
	return true
}

// conflictText renders a spec for 85/86 messages as mongod does: v first,
// then the options, then key and name.
func conflictText(spec bson.D) string {
	out := bson.D{{Key: "v", Value: int32(2)}}
	for _, e := range spec {
		switch e.Key {
		case "v", "key", "name", "ns":
		default:
			out = append(out, e)
		}
	}
	if k, ok := catalog.FieldOf(spec, "key"); ok {
		out = append(out, bson.E{Key: "key", Value: k})
	}
	if n, ok := catalog.FieldOf(spec, "name"); ok {
		out = append(out, bson.E{Key: "name", Value: n})
	}
	return fmtDoc(out)
}

// indexConflict compares a requested index with an existing one. It returns
// exists when they are the same index, or MongoDB's IndexOptionsConflict
// (85, same key and other options) or IndexKeySpecsConflict (86, same name
// and another key).
func indexConflict(req *indexRequest, existing bson.D) (exists bool, err error) {
	exName, _ := catalog.FieldOf(existing, "name")
	exKeyV, _ := catalog.FieldOf(existing, "key")
	exKey, _ := exKeyV.(bson.D)
	sameName := exName == req.name
	sameKey := catalog.SameDoc(exKey, req.key)
	sameIdent := sameOptions(identifying(existing), identifying(req.spec))
	sameRest := sameOptions(nonIdentifying(existing), nonIdentifying(req.spec))
	pair := fmt.Sprintf("Requested index: %s, existing index: %s", conflictText(req.spec), conflictText(existing))
	switch {
	case sameName && sameKey && sameIdent && sameRest:
		return true, nil
	case sameName && sameKey && sameIdent:
		return false, mongoerr.New(mongoerr.IndexOptionsConflict,
			"An equivalent index already exists with the same name but different options. "+pair)
	case sameName:
		return false, mongoerr.New(mongoerr.IndexKeySpecsConflict,
			"An existing index has the same name as the requested index. When index names are not specified, "+
				"they are auto generated and can cause conflicts. Please refer to our documentation. "+pair)
	case sameKey && sameIdent && sameRest:
		return false, mongoerr.Newf(mongoerr.IndexOptionsConflict, "Index already exists with a different name: %v", exName)
	case sameKey && sameIdent:
		return false, mongoerr.New(mongoerr.IndexOptionsConflict,
			"An equivalent index already exists with a different name and options. "+pair)
	}
	return false, nil
}
