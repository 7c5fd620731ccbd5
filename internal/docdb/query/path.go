package query

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Candidate is one value that a dotted path reaches in a document when it is
// read the way the query matcher reads it (see Walk).
type Candidate struct {
	// Value is the value reached; nil with Missing false is a BSON null.
	Value any
	// Missing reports that the path reached no value here (a field was
	// absent, or a scalar stood where the path needed a document). Null
	// equality and {$exists: false} match a missing candidate.
	Missing bool
	// ArrayIndex is the index, in the outermost array that was traversed
	// implicitly, of the element this candidate came from; -1 when no array
	// was traversed implicitly. It is what the positional $ operator uses.
	ArrayIndex int
}

// LeafArrays says how Walk treats an array found at the end of the path.
type LeafArrays int

const (
	// ExpandLeafArrays yields each element of a leaf array and then the
	// array itself. Comparison operators, $in, $type and $exists read paths
	// this way, so {a: 5} matches {a: [5]} and {a: [5]} matches too.
	ExpandLeafArrays LeafArrays = iota
	// WholeLeafArrays yields a leaf array only as a whole. $size, $all and
	// $elemMatch read paths this way.
	WholeLeafArrays
)

// SplitPath splits a dotted path into its components.
func SplitPath(path string) []string { return strings.Split(path, ".") }

// Walk calls fn for every value the dotted path (already split into parts)
// reaches in doc, with MongoDB's matcher semantics, until fn returns false:
//
//   - Documents are entered field by field. A missing field, or a non-document
//     value with path parts left, yields one Missing candidate.
//   - An array met before the last part is traversed implicitly: the rest of
//     the path is applied to every element that is a document (each yields
//     with ArrayIndex set to its index in the outermost such array). Elements
//     that are not documents are skipped, so {"a.b": null} does not match
//     {a: [1]} while it does match {a: [{}]} and {a: 1}.
//   - If the next part is all digits (a.0.b), the array element at that
//     index is also used, as a positional component (ArrayIndex unchanged):
//     if it is the last part the element itself is yielded; if it is an
//     array its elements are traversed with the rest of the path, one level.
//     Documents in the array are still traversed implicitly as well, so
//     {"a.0": 1} matches both {a: [1]} and {a: [{"0": 1}]}.
//   - Arrays nested directly in arrays are not traversed implicitly:
//     {"a.b": 1} does not match {a: [[{b: 1}]]}.
//   - An array at the end of the path is yielded according to leaf.
func Walk(doc bson.D, parts []string, leaf LeafArrays, fn func(Candidate) bool) {
	w := walker{parts: parts, leaf: leaf, fn: fn}
	w.object(doc, 0, -1)
}

// Lookup returns every candidate Walk yields for the dotted path, with leaf
// arrays expanded.
func Lookup(doc bson.D, path string) []Candidate {
	var out []Candidate
	Walk(doc, SplitPath(path), ExpandLeafArrays, func(c Candidate) bool {
		out = append(out, c)
		return true
	})
	return out
}

type walker struct {
	parts []string
	leaf  LeafArrays
	fn    func(Candidate) bool
}

// object walks parts[i:] starting in document d. It returns false when fn
// asked to stop.
func (w *walker) object(d bson.D, i int, idx int) bool {
	var cur any = d
	for ; i < len(w.parts); i++ {
		dd, ok := AsDocument(cur)
		if !ok {
			return w.fn(Candidate{Missing: true, ArrayIndex: idx})
		}
		v, ok := Field(dd, w.parts[i])
		if !ok {
			return w.fn(Candidate{Missing: true, ArrayIndex: idx})
		}
		if arr, ok := AsArray(v); ok {
			return w.array(arr, i+1, idx, true)
		}
		cur = v
	}
	return w.fn(Candidate{Value: cur, ArrayIndex: idx})
}

// array walks parts[i:] over the elements of arr. outer is the array index
// inherited from an enclosing implicit traversal (-1 if none). top reports
// whether arr was reached through a field (true) rather than as an element
// of another array reached by a positional component; only then is a leaf
// array yielded as a whole as well.
func (w *walker) array(arr bson.A, i int, outer int, top bool) bool {
	if i == len(w.parts) {
		if top && w.leaf == WholeLeafArrays {
			return w.fn(Candidate{Value: arr, ArrayIndex: outer})
		}
		for j, e := range arr {
			if !w.fn(Candidate{Value: e, ArrayIndex: pick(outer, j)}) {
				return false
			}
		}
		if !top {
			return true
		}
		return w.fn(Candidate{Value: arr, ArrayIndex: outer})
	}
	pos := -1
	if isAllDigits(w.parts[i]) {
		if n, err := strconv.Atoi(w.parts[i]); err == nil && strconv.Itoa(n) == w.parts[i] {
			pos = n
		}
	}
	for j, e := range arr {
		if d, ok := AsDocument(e); ok {
			if !w.object(d, i, pick(outer, j)) {
				return false
			}
		}
		if j != pos {
			continue
		}
		// Positional component: the element at that index, with the array
		// offset of this traversal left as it was.
		if i+1 == len(w.parts) {
			if !w.fn(Candidate{Value: e, ArrayIndex: outer}) {
				return false
			}
			continue
		}
		if d, ok := AsDocument(e); ok {
			if !w.object(d, i+1, outer) {
				return false
			}
		} else if a, ok := AsArray(e); ok {
			if !w.array(a, i+1, outer, false) {
				return false
			}
		}
	}
	return true
}

func pick(outer, j int) int {
	if outer >= 0 {
		return outer
	}
	return j
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Field returns the value of the first field named name in d.
func Field(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// GetPath returns the single value at a dotted path without implicit array
// traversal: documents are entered by field name and arrays only by a
// numeric component (a.0.b). This is how update operators and projections
// address one location. It reports false if any step is missing or not
// traversable.
func GetPath(doc bson.D, path string) (any, bool) {
	var cur any = doc
	for _, p := range SplitPath(path) {
		if d, ok := AsDocument(cur); ok {
			v, ok := Field(d, p)
			if !ok {
				return nil, false
			}
			cur = v
			continue
		}
		if a, ok := AsArray(cur); ok {
			n, err := strconv.Atoi(p)
			if err != nil || !isAllDigits(p) || n >= len(a) {
				return nil, false
			}
			cur = a[n]
			continue
		}
		return nil, false
	}
	return cur, true
}

// ExprPath evaluates a field path the way aggregation expressions do
// ("$a.b"): documents are entered by field name; when an array is met
// before the last part, the rest of the path is applied to each element that
// is a document and the result is the array of the values found (elements
// that are not documents, nested arrays included, and elements where the rest
// is missing, are dropped; numeric components are ordinary field names). It reports false
// when the value is missing.
func ExprPath(doc bson.D, path string) (any, bool) {
	return exprPath(doc, SplitPath(path))
}

func exprPath(d bson.D, parts []string) (any, bool) {
	v, ok := Field(d, parts[0])
	if !ok {
		return nil, false
	}
	if len(parts) == 1 {
		return v, true
	}
	if sub, ok := AsDocument(v); ok {
		return exprPath(sub, parts[1:])
	}
	if arr, ok := AsArray(v); ok {
		return exprPathArray(arr, parts[1:]), true
	}
	return nil, false
}

func exprPathArray(arr bson.A, parts []string) bson.A {
	out := bson.A{}
	for _, e := range arr {
		if sub, ok := AsDocument(e); ok {
			if v, ok := exprPath(sub, parts); ok {
				out = append(out, v)
			}
		}
	}
	return out
}
