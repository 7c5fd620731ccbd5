package kv

// Match reports whether s matches the glob pattern as Redis's
// stringmatchlen does: * ? [abc] [^a-z] and backslash escapes. nocase folds
// ASCII case.
func Match(pattern, s []byte, nocase bool) bool {
	return match(pattern, s, nocase, 0)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func match(p, s []byte, nocase bool, depth int) bool {
	if depth > 1000 {
		return false // pathological pattern: Redis also bounds the nesting
	}
	for len(p) > 0 && len(s) > 0 || len(p) > 0 && p[0] == '*' {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if match(p[1:], s, nocase, depth+1) {
					return true
				}
				s = s[1:]
			}
			return match(p[1:], s, nocase, depth+1)
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					start, end := p[0], p[2]
					c := s[0]
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					p = p[2:]
					if c >= start && c <= end {
						matched = true
					}
				} else {
					if nocase {
						if lower(p[0]) == lower(s[0]) {
							matched = true
						}
					} else if p[0] == s[0] {
						matched = true
					}
				}
				p = p[1:]
			}
			if len(p) == 0 {
				// Unterminated class: Redis treats the end as the close.
				p = []byte{']'}
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if nocase {
				if lower(p[0]) != lower(s[0]) {
					return false
				}
			} else if p[0] != s[0] {
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

// literalPrefix returns the part of pattern before its first special
// character, so KEYS and SCAN can bound their walk.
func literalPrefix(pattern []byte) []byte {
	for i, c := range pattern {
		switch c {
		case '*', '?', '[', '\\':
			return pattern[:i]
		}
	}
	return pattern
}
