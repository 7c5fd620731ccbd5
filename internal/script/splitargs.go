package script

import (
	"strconv"
	"strings"
)

// splitArgs splits a shebang line into words as Redis does (sdssplitargs):
// words are separated by spaces; a word may be "double quoted" (with \n,
// \r, \t, \b, \a, \\, \" and \xHH escapes) or 'single quoted' (with \'),
// and a closing quote must be followed by a space or the end. ok is false
// for unbalanced quotes.
func splitArgs(line string) (words []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return words, true
		}
		var b strings.Builder
		inDouble, inSingle := false, false
		for done := false; !done; {
			switch {
			case inDouble:
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					n, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
					b.WriteByte(byte(n))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						b.WriteByte('\n')
					case 'r':
						b.WriteByte('\r')
					case 't':
						b.WriteByte('\t')
					case 'b':
						b.WriteByte('\b')
					case 'a':
						b.WriteByte('\a')
					default:
						b.WriteByte(line[i])
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					b.WriteByte(c)
				}
			case inSingle:
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					b.WriteByte('\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					b.WriteByte(c)
				}
			default:
				if i >= len(line) {
					done = true
					break
				}
				switch c := line[i]; {
				case isSpace(c):
					done = true
				case c == '"':
					inDouble = true
				case c == '\'':
					inSingle = true
				default:
					b.WriteByte(c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		words = append(words, b.String())
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
