// Package glob matches strings against Redis's glob-style patterns, as
// KEYS, SCAN MATCH, PSUBSCRIBE, COMMAND LIST FILTERBY PATTERN and CONFIG
// GET use them.
//
// The syntax and its corner cases are Redis's stringmatchlen:
//
//   - '*' matches any sequence of bytes, '?' any one byte;
//   - '[abc]' one byte of the class, '[^abc]' one byte outside it, 'a-z' a
//     range (its ends in either order), '\x' the byte x; a class that is not
//     closed ends with the pattern;
//   - '\x' outside a class matches x, a '\' that ends the pattern matches
//     itself;
//   - an empty subject matches only the empty pattern (callers treat a
//     pattern of a single '*' as "everything" before matching);
//   - nocase folds ASCII letters, except for an escaped byte inside a class;
//   - a pattern nesting more than 1000 '*' matches nothing.
//
// Matching takes time bounded by the pattern's length times the subject's:
// when the rest of a pattern after a '*' matches at no position of the rest
// of the subject, no earlier '*' can match either (it would only start the
// rest later), so the search stops instead of retrying every earlier '*'.
package glob

// maxNesting is the number of '*' after which a pattern matches nothing.
const maxNesting = 1000

// Match reports whether s matches pattern; nocase folds ASCII case.
func Match(pattern, s []byte, nocase bool) bool {
	m := matcher{nocase: nocase}
	return m.match(pattern, s, 0)
}

// matcher holds one match's options, its cut-off (once set, every pending
// '*' gives up) and how many times match was entered.
type matcher struct {
	nocase     bool
	skipLonger bool
	calls      int
}

func (m *matcher) match(p, s []byte, nesting int) bool {
	m.calls++
	if nesting > maxNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			return m.star(p, s, nesting)
		case '?':
			s = s[1:]
		case '[':
			var ok bool
			if p, ok = m.class(p[1:], s[0]); !ok {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if !m.same(p[0], s[0]) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

// star matches p, which starts with '*', against a non-empty s: the rest of
// the pattern at each position of s, stopping for good once the rest has
// failed at all of them.
func (m *matcher) star(p, s []byte, nesting int) bool {
	for len(p) > 1 && p[1] == '*' {
		p = p[1:]
	}
	if len(p) == 1 {
		return true
	}
	for ; len(s) > 0; s = s[1:] {
		if m.match(p[1:], s, nesting+1) {
			return true
		}
		if m.skipLonger {
			return false
		}
	}
	m.skipLonger = true
	return false
}

// class matches c against the class that p opens (p follows the '['),
// returning the pattern from the class's closing ']' on (or from its last
// byte when the class is not closed) and whether c is in it.
func (m *matcher) class(p []byte, c byte) ([]byte, bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	in := false
	for {
		if len(p) >= 2 && p[0] == '\\' {
			p = p[1:]
			if p[0] == c {
				in = true
			}
		} else if len(p) > 0 && p[0] == ']' {
			break
		} else if len(p) == 0 {
			// Not closed: the caller steps past the last byte, ending
			// the pattern.
			p = []byte{']'}
			break
		} else if len(p) >= 3 && p[1] == '-' {
			lo, hi, x := p[0], p[2], c
			if lo > hi {
				lo, hi = hi, lo
			}
			if m.nocase {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			p = p[2:]
			if lo <= x && x <= hi {
				in = true
			}
		} else if m.same(p[0], c) {
			in = true
		}
		p = p[1:]
	}
	return p, in != not
}

func (m *matcher) same(a, b byte) bool {
	if m.nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// LiteralPrefix returns the part of pattern before its first special byte:
// every subject the pattern matches (case-sensitively) starts with it, so a
// walk over sorted keys can be bounded by it.
func LiteralPrefix(pattern []byte) []byte {
	for i, c := range pattern {
		switch c {
		case '*', '?', '[', '\\':
			return pattern[:i]
		}
	}
	return pattern
}
