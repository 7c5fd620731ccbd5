package acl

import (
	"strings"
	"testing"
)

// FuzzApply applies arbitrary rules: nothing panics, and a user that
// accepts them describes itself as rules that rebuild the same user.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		"on >pw ~k* +get", "%R~r* %W~w* &ch +@read -@write", "(~x* +get) clearselectors",
		"+config|get -config +select|0", "#" + strings.Repeat("a", 64), "reset nopass allkeys allcommands",
		"(+get", "%RWX~a", "<nope", "~a allkeys", "+@all -set",
	} {
		f.Add(seed)
	}
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, rules string) {
		u, err := NewUser("u", false).ApplyAll(cat, strings.Fields(rules))
		if err != nil {
			return
		}
		desc := u.Describe(cat)
		if patternHoldsParenthesis(desc) {
			// A pattern holding a parenthesis ends or opens a selector
			// when the description is read back, in Redis as here
			// (ACL LOAD merges the words of a selector up to the first
			// one ending in ")"), so such a description does not rebuild.
			return
		}
		again, err := NewUser("u", false).ApplyAll(cat, strings.Fields(desc))
		if err != nil {
			t.Fatalf("description %q of %q refused: %v", desc, rules, err)
		}
		if d := again.Describe(cat); d != desc {
			t.Fatalf("%q describes as %q, rebuilt as %q", rules, desc, d)
		}
		u.Check(cat.Lookup("get"), [][]byte{[]byte("get"), []byte("k")}, []KeyRef{{1, Read}}, nil)
	})
}

// patternHoldsParenthesis reports whether a key or channel pattern of a
// description holds a parenthesis. A description writes a selector's
// command rules last, so its closing parenthesis never ends a pattern.
func patternHoldsParenthesis(desc string) bool {
	for _, w := range strings.Fields(desc) {
		w = strings.TrimPrefix(w, "(")
		if strings.ContainsAny(w[:1], "~%&") && strings.ContainsAny(w, "()") {
			return true
		}
	}
	return false
}
