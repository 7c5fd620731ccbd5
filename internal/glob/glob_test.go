package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"", "", false, true},
		{"*", "", false, false}, // an empty subject matches only ""
		{"", "a", false, false},
		{"*", "anything", false, true},
		{"**", "x", false, true},
		{"a*", "a", false, true},
		{"a*b", "ab", false, true},
		{"a*b", "axxb", false, true},
		{"a*b", "axxbc", false, false},
		{"*b*", "abc", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "hllo", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true}, // range ends in either order
		{"h[a-b]llo", "hcllo", false, false},
		{`h\*llo`, "h*llo", false, true},
		{`h\*llo`, "hello", false, false},
		{`\`, `\`, false, true}, // a final backslash matches itself
		{`a\`, `a\`, false, true},
		{`[\]]`, "]", false, true},
		{`[\-]`, "-", false, true},
		{"[abc", "c", false, true}, // an unclosed class ends with the pattern
		{"[abc", "cx", false, false},
		{"[", "x", false, false},
		{"[^", "x", false, true},
		{"[]", "]", false, false},
		{"[a-]", "]", false, true}, // "a-]" is a range: the class is not closed
		{"HELLO", "hello", true, true},
		{"HELLO", "hello", false, false},
		{"h[A-C]*", "hbx", true, true},
		{"h[^A-C]*", "hbx", true, false},
		{`[\A]`, "a", true, false}, // an escaped byte in a class keeps its case
		{"[A]", "a", true, true},
		{"user:*:name", "user:42:name", false, true},
		{"user:*:name", "user:42:names", false, false},
		{"*a*a*b", "aaab", false, true},
		{"*a*a*b", "aaaa", false, false},
		{"a*a*a", "aa", false, false},
		{"a*a*a", "aaa", false, true},
		{"?", "", false, false},
		{"*?", "x", false, true},
		{"*?*?", "x", false, false},
	}
	for _, c := range cases {
		if got := Match([]byte(c.pattern), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
		if got := reference([]byte(c.pattern), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("reference(%q, %q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
	}
}

// TestNestedStarsAreLinear is Redis's "Regression for pattern matching long
// nested loops": without the cut-off this pattern takes exponential time.
func TestNestedStarsAreLinear(t *testing.T) {
	pattern := []byte(strings.Repeat("a*", 32) + "b")
	for _, n := range []int{50, 1000, 100000} {
		s := []byte(strings.Repeat("a", n))
		if Match(pattern, s, false) {
			t.Fatalf("matched %d a's", n)
		}
		if !Match(pattern, append(s, 'b'), false) {
			t.Fatalf("did not match %d a's and a b", n)
		}
	}
	for _, n := range []int{1000, 10000} {
		m := matcher{}
		m.match(pattern, []byte(strings.Repeat("a", n)), 0)
		if limit := len(pattern) * n; m.calls > limit {
			t.Fatalf("%d a's: %d steps, more than pattern x subject (%d)", n, m.calls, limit)
		}
	}
}

func TestMaxNesting(t *testing.T) {
	s := []byte(strings.Repeat("a", maxNesting+10))
	if !Match([]byte(strings.Repeat("a*", maxNesting-1)), s, false) {
		t.Fatal("a pattern within the nesting limit must match")
	}
	if Match([]byte(strings.Repeat("a*", maxNesting+2)), s, false) {
		t.Fatal("a pattern past the nesting limit matches nothing")
	}
}

func TestLiteralPrefix(t *testing.T) {
	for p, want := range map[string]string{
		"": "", "abc": "abc", "ab*": "ab", "a?c": "a", "a[b]": "a", `a\*`: "a", "*": "",
	} {
		if got := string(LiteralPrefix([]byte(p))); got != want {
			t.Errorf("LiteralPrefix(%q) = %q, want %q", p, got, want)
		}
	}
}
