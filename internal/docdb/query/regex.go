package query

import (
	"math"
	"regexp"
	"strings"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// newRegexPred compiles a MongoDB regular expression. MongoDB uses PCRE; Go's
// RE2 syntax covers the common subset (no backreferences or lookaround). The
// options are i (case-insensitive), m (^ and $ at line breaks), s (. matches
// newline), x (extended: unescaped whitespace and #-comments are ignored)
// and u (accepted, UTF-8 is always on).
func newRegexPred(pattern, options string) (*regexPred, error) {
	re, err := CompileRegex(pattern, options)
	if err != nil {
		return nil, err
	}
	return &regexPred{re: re, pattern: pattern, options: options}, nil
}

// CompileRegex compiles a MongoDB regular expression with its options into
// a Go regexp, with MongoDB's errors: code 51108 for an unknown option,
// 51091 for an invalid pattern.
func CompileRegex(pattern, options string) (*regexp.Regexp, error) {
	var flags strings.Builder
	extended := false
	for _, c := range options {
		switch c {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags.String(), c) {
				flags.WriteRune(c)
			}
		case 'x':
			extended = true
		case 'u':
		default:
			return nil, mongoerr.Newf(mongoerr.Location51108, "invalid flag in regex options: %c", c)
		}
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, mongoerr.New(mongoerr.Location51091, "Regular expression is invalid: pattern contains a null byte")
	}
	if extended {
		pattern = stripExtended(pattern)
	}
	src := pattern
	if flags.Len() > 0 {
		src = "(?" + flags.String() + ")" + pattern
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, mongoerr.Newf(mongoerr.Location51091, "Regular expression is invalid: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// stripExtended removes what PCRE's extended mode ignores: whitespace and
// comments from # to the end of the line, outside character classes and
// escapes.
func stripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == ']' { // a leading ] is literal
				b.WriteByte(']')
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isInfFloat(f float64) bool { return math.IsInf(f, 0) }
