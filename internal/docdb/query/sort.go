package query

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// SortField is one key of a sort specification.
type SortField struct {
	Path       string
	Descending bool
	parts      []string
}

// Sort is a parsed sort specification. It is immutable and safe for
// concurrent use.
type Sort struct {
	fields []SortField
	// coll maps the strings of sort values to collation keys; nil sorts
	// strings bytewise.
	coll Collator
}

// Collator maps every string in a BSON value to its collation key, whose
// bytewise order is the collation's (collation.Collator does).
type Collator interface {
	Value(v any) any
}

// WithCollation returns s sorting strings by the collation c (nil for the
// binary order). Its keys (KeyOf) then hold collation keys in place of
// strings.
func (s *Sort) WithCollation(c Collator) *Sort {
	if s == nil {
		return nil
	}
	out := *s
	out.coll = c
	return &out
}

// ParseSort parses a sort specification such as {a: 1, "b.c": -1}. Each
// value must be a number whose integer part is 1 or -1; {$meta: ...} is
// refused. An empty specification sorts nothing.
func ParseSort(spec bson.D) (*Sort, error) {
	s := &Sort{}
	for _, e := range spec {
		if d, ok := AsDocument(e.Value); ok {
			if len(d) > 0 && d[0].Key == "$meta" {
				return nil, mongoerr.New(mongoerr.NotImplemented, "$meta sort is not supported")
			}
			return nil, mongoerr.New(mongoerr.Location17312, "$meta is the only expression supported by $sort right now")
		}
		if !IsNumber(e.Value) {
			return nil, mongoerr.Newf(mongoerr.Location15974, "Illegal key in $sort specification: %s", elemString(e.Key, e.Value))
		}
		dir := safeNumberInt(e.Value)
		if dir != 1 && dir != -1 {
			return nil, mongoerr.New(mongoerr.Location15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
		}
		if err := validateFieldPath(e.Key); err != nil {
			return nil, err
		}
		s.fields = append(s.fields, SortField{Path: e.Key, Descending: dir == -1, parts: strings.Split(e.Key, ".")})
	}
	return s, nil
}

// Collation returns the collation s sorts strings by; nil for the binary
// order.
func (s *Sort) Collation() Collator {
	if s == nil {
		return nil
	}
	return s.coll
}

// Fields returns the sort keys in order.
func (s *Sort) Fields() []SortField { return slices.Clone(s.fields) }

// Empty reports whether the sort has no keys.
func (s *Sort) Empty() bool { return len(s.fields) == 0 }

// KeyOf returns the sort key of doc: per field, the value the document sorts
// by. A path that reaches several values (through arrays) sorts by the
// smallest of them for an ascending key and the largest for a descending
// one; a missing field sorts as null and an empty array as undefined (below
// null), as MongoDB's sort keys do.
func (s *Sort) KeyOf(doc bson.D) []any {
	key := make([]any, len(s.fields))
	for i, f := range s.fields {
		key[i] = sortValue(doc, f.parts, f.Descending, s.coll)
	}
	return key
}

func sortValue(doc bson.D, parts []string, desc bool, coll Collator) any {
	var best any
	found := false
	consider := func(v any) {
		if coll != nil {
			v = coll.Value(v)
		}
		if !found {
			best, found = v, true
			return
		}
		c := Compare(v, best)
		if (!desc && c < 0) || (desc && c > 0) {
			best = v
		}
	}
	Walk(doc, parts, WholeLeafArrays, func(c Candidate) bool {
		if c.Missing {
			consider(nil)
			return true
		}
		if a, ok := AsArray(c.Value); ok {
			if len(a) == 0 {
				consider(bson.Undefined{})
				return true
			}
			for _, e := range a {
				consider(e)
			}
			return true
		}
		consider(c.Value)
		return true
	})
	if !found {
		return nil
	}
	return best
}

// CompareKeys compares two keys returned by KeyOf: -1 if a sorts first.
func (s *Sort) CompareKeys(a, b []any) int {
	for i, f := range s.fields {
		c := Compare(a[i], b[i])
		if f.Descending {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Compare compares two documents in sort order: -1 if a sorts first.
func (s *Sort) Compare(a, b bson.D) int {
	return s.CompareKeys(s.KeyOf(a), s.KeyOf(b))
}

// SortDocs sorts docs in place; documents with equal keys keep their order.
func (s *Sort) SortDocs(docs []bson.D) {
	if len(s.fields) == 0 {
		return
	}
	keys := make(map[int][]any, len(docs))
	idx := make([]int, len(docs))
	for i := range docs {
		idx[i] = i
		keys[i] = s.KeyOf(docs[i])
	}
	slices.SortStableFunc(idx, func(x, y int) int { return s.CompareKeys(keys[x], keys[y]) })
	sorted := make([]bson.D, len(docs))
	for i, j := range idx {
		sorted[i] = docs[j]
	}
	copy(docs, sorted)
}
