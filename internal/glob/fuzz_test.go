package glob

import "testing"

// token is one element of a pattern for the reference matcher.
type token struct {
	star bool
	any  bool
	set  [256]bool // the bytes this token matches, when neither star nor any
}

// tokens splits a pattern as Redis reads it, folding case into each set
// when nocase (except for bytes escaped inside a class).
func tokens(p []byte, nocase bool) []token {
	fold := func(set *[256]bool, c byte) {
		set[c] = true
		if nocase {
			for _, d := range []byte{lower(c), upper(c)} {
				set[d] = true
			}
		}
	}
	var out []token
	for i := 0; i < len(p); {
		var t token
		switch {
		case p[i] == '*':
			t.star = true
			i++
		case p[i] == '?':
			t.any = true
			i++
		case p[i] == '\\' && i+1 < len(p):
			fold(&t.set, p[i+1])
			i += 2
		case p[i] == '[':
			i++
			neg := i < len(p) && p[i] == '^'
			if neg {
				i++
			}
			var in [256]bool
		class:
			for {
				switch {
				case i+1 < len(p) && p[i] == '\\':
					in[p[i+1]] = true
					i += 2
				case i < len(p) && p[i] == ']':
					i++
					break class
				case i >= len(p):
					break class
				case i+2 < len(p) && p[i+1] == '-':
					lo, hi := p[i], p[i+2]
					if lo > hi {
						lo, hi = hi, lo
					}
					for c := 0; c < 256; c++ {
						x := byte(c)
						if nocase {
							if lower(lo) <= lower(x) && lower(x) <= lower(hi) {
								in[c] = true
							}
						} else if lo <= x && x <= hi {
							in[c] = true
						}
					}
					i += 3
				default:
					fold(&in, p[i])
					i++
				}
			}
			for c := range in {
				t.set[c] = in[c] != neg
			}
		default:
			fold(&t.set, p[i])
			i++
		}
		out = append(out, t)
	}
	return out
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// reference matches by dynamic programming over the tokens: an
// independent statement of the same semantics.
func reference(p, s []byte, nocase bool) bool {
	if len(s) == 0 {
		return len(p) == 0
	}
	ts := tokens(p, nocase)
	// at[j]: the tokens so far match s[:j].
	at := make([]bool, len(s)+1)
	at[0] = true
	for _, t := range ts {
		next := make([]bool, len(s)+1)
		for j := 0; j <= len(s); j++ {
			switch {
			case t.star:
				next[j] = at[j] || j > 0 && next[j-1]
			case j > 0 && at[j-1]:
				next[j] = t.any || t.set[s[j-1]]
			}
		}
		at = next
	}
	return at[len(s)]
}

func FuzzMatch(f *testing.F) {
	f.Add([]byte("h[a-c]*o"), []byte("hbllo"), false)
	f.Add([]byte("*a*a*a*b"), []byte("aaaaaaaa"), false)
	f.Add([]byte(`[^\]x-]?*`), []byte("Abc"), true)
	f.Add([]byte("[abc"), []byte("c"), false)
	f.Fuzz(func(t *testing.T, p, s []byte, nocase bool) {
		if len(p) > 200 || len(s) > 200 {
			return
		}
		if got, want := Match(p, s, nocase), reference(p, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference %v", p, s, nocase, got, want)
		}
	})
}
