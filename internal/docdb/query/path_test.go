package query

import (
	"fmt"
	"testing"
)

func TestWalk(t *testing.T) {
	cases := []struct {
		rule string
		doc  string
		path string
		leaf LeafArrays
		want string
	}{
		{"plain field", `{"a": 1}`, "a", ExpandLeafArrays, "[1@-1]"},
		{"missing field yields one missing", `{"b": 1}`, "a", ExpandLeafArrays, "[missing@-1]"},
		{"scalar with path left is missing", `{"a": 1}`, "a.b", ExpandLeafArrays, "[missing@-1]"},
		{"nested document", `{"a": {"b": 2}}`, "a.b", ExpandLeafArrays, "[2@-1]"},
		{"leaf array: elements then the array", `{"a": [1, 2]}`, "a", ExpandLeafArrays, "[1@0 2@1 [1 2]@-1]"},
		{"leaf array whole for $size/$elemMatch", `{"a": [1, 2]}`, "a", WholeLeafArrays, "[[1 2]@-1]"},
		{"empty leaf array yields itself", `{"a": []}`, "a", ExpandLeafArrays, "[[]@-1]"},
		{"implicit traversal of documents in array", `{"a": [{"b": 1}, {"c": 1}, 5]}`, "a.b", ExpandLeafArrays, "[1@0 missing@1]"},
		{"non-document elements skipped, nothing yielded", `{"a": [1, 2]}`, "a.b", ExpandLeafArrays, "[]"},
		{"nested arrays not traversed implicitly", `{"a": [[{"b": 1}]]}`, "a.b", ExpandLeafArrays, "[]"},
		{"outermost array index wins", `{"a": [{"b": 1}, {"b": [2, 3]}]}`, "a.b", ExpandLeafArrays, "[1@0 2@1 3@1 [2 3]@1]"},
		{"numeric component indexes array", `{"a": [{"b": 1}, {"b": 2}]}`, "a.1.b", ExpandLeafArrays, "[missing@0 missing@1 2@-1]"},
		{"numeric leaf component", `{"a": [7, 8]}`, "a.1", ExpandLeafArrays, "[8@-1]"},
		{"numeric leaf array element not expanded", `{"a": [[5]]}`, "a.0", ExpandLeafArrays, "[[5]@-1]"},
		{"numeric component into nested array", `{"a": [[5, 6]]}`, "a.0.1", ExpandLeafArrays, "[6@-1]"},
		{"numeric component then nested array traversal", `{"a": [[{"b": 1}]]}`, "a.0.b", ExpandLeafArrays, "[1@0]"},
		{"numeric field name in subdocument", `{"a": [{"0": 4}]}`, "a.0", ExpandLeafArrays, `[4@0 {"0":{"$numberInt":"4"}}@-1]`},
		{"numeric component out of range", `{"a": [1]}`, "a.3", ExpandLeafArrays, "[]"},
		{"leading zero is not an index", `{"a": [1]}`, "a.00", ExpandLeafArrays, "[]"},
		{"numeric component on document is a field name", `{"a": {"0": 1}}`, "a.0", ExpandLeafArrays, "[1@-1]"},
		{"deep outermost index", `{"x": [{"a": [[{"b": 1}]]}]}`, "x.a.0.b", ExpandLeafArrays, "[1@0]"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			var out []string
			Walk(doc(t, c.doc), SplitPath(c.path), c.leaf, func(c Candidate) bool {
				if c.Missing {
					out = append(out, fmt.Sprintf("missing@%d", c.ArrayIndex))
				} else {
					out = append(out, fmt.Sprintf("%v@%d", c.Value, c.ArrayIndex))
				}
				return true
			})
			if got := fmt.Sprint(out); got != c.want {
				t.Errorf("Walk(%s, %q) = %s, want %s", c.doc, c.path, got, c.want)
			}
		})
	}
}

func TestWalkStops(t *testing.T) {
	n := 0
	Walk(doc(t, `{"a": [1, 2, 3]}`), []string{"a"}, ExpandLeafArrays, func(Candidate) bool { n++; return false })
	if n != 1 {
		t.Fatalf("Walk called fn %d times after it returned false", n)
	}
}

func TestLookup(t *testing.T) {
	got := Lookup(doc(t, `{"a": {"b": [1]}}`), "a.b")
	if len(got) != 2 || !Equal(got[0].Value, 1) || got[0].ArrayIndex != 0 || got[1].ArrayIndex != -1 {
		t.Fatalf("Lookup = %+v", got)
	}
}

func TestGetPath(t *testing.T) {
	d := doc(t, `{"a": [{"b": 1}, 2], "c": {"d": null}}`)
	cases := []struct {
		path string
		want any
		ok   bool
	}{
		{"a.0.b", 1, true},
		{"a.1", 2, true},
		{"a.2", nil, false},
		{"a.b", nil, false},
		{"c.d", nil, true},
		{"c.e", nil, false},
		{"a.-1", nil, false},
	}
	for _, c := range cases {
		got, ok := GetPath(d, c.path)
		if ok != c.ok || !Equal(got, c.want) {
			t.Errorf("GetPath(%q) = %v, %v; want %v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

func TestExprPath(t *testing.T) {
	// Rule: aggregation field paths map over arrays, drop non-documents and
	// missing values, and never treat numeric parts as indexes.
	d := doc(t, `{"a": [{"b": 1}, 5, {"c": 1}, [{"b": 9}], {"b": [2]}], "x": {"y": 3}, "n": [1]}`)
	cases := []struct {
		path string
		want string
		ok   bool
	}{
		{"a.b", `[1, [2]]`, true},
		{"x.y", `3`, true},
		{"x.z", `null`, false},
		{"n.0", `[]`, true},
		{"x.y.z", `null`, false},
	}
	for _, c := range cases {
		got, ok := ExprPath(d, c.path)
		if ok != c.ok || !Equal(got, val(t, c.want)) {
			t.Errorf("ExprPath(%q) = %v, %v; want %v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}
