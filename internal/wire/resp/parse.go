package resp

import (
	"bytes"
	"math"
	"strconv"
)

// Limits bound what the parser accepts, as Redis's configuration does.
type Limits struct {
	// MaxBulkLen is proto-max-bulk-len: the largest bulk string (512 MiB).
	MaxBulkLen int64
	// MaxMultibulkLen is the largest argument count (Redis: INT_MAX).
	MaxMultibulkLen int64
	// MaxInlineLen is the largest inline command, and the longest count line
	// of a multibulk request (Redis's PROTO_INLINE_MAX_SIZE, 64 KiB).
	MaxInlineLen int
	// Unauthenticated applies the stricter limits Redis uses before AUTH:
	// at most 10 arguments of at most 16 KiB each.
	Unauthenticated bool
}

// DefaultLimits returns Redis's defaults.
func DefaultLimits() Limits {
	return Limits{MaxBulkLen: 512 << 20, MaxMultibulkLen: 1<<31 - 1, MaxInlineLen: 64 << 10}
}

// ProtocolError is a malformed request. The connection answers
// "-ERR Protocol error: <Msg>" and closes.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

func protoErr(msg string) *ProtocolError { return &ProtocolError{Msg: msg} }

// ParseCommand parses the first request in buf, in the multibulk form
// (*N\r\n$len\r\narg\r\n...) or the inline form (words on one line). It is
// a pure function of its input: it returns the arguments (slices of buf,
// appended to args[:0]), the number of bytes consumed, and an error. When
// buf holds no complete request it returns n == 0 and no error; a request
// with no arguments (an empty line, *0 or *-1) returns n > 0 and no args.
func ParseCommand(buf []byte, lim Limits, args [][]byte) ([][]byte, int, error) {
	args = args[:0]
	var p progress
	done, err := p.advance(buf, lim, &args)
	if err != nil || !done {
		return args[:0], 0, err
	}
	return args, p.pos, nil
}

// progress is how far parsing got into one request that starts at the
// beginning of a buffer, so that parsing can resume where it stopped when
// more bytes arrive instead of starting over: a request of many arguments
// that arrives in many reads is then parsed in time linear in its size.
// The zero value is the start of a request.
type progress struct {
	// pos is the number of bytes of the request consumed: the count line
	// and every complete argument of a multibulk request, or the bytes
	// searched for the end of an inline request.
	pos int
	// count is the number of arguments the count line declared; parsed is
	// how many of them are complete.
	count, parsed int64
	// need, when non-zero, is the length the buffer must reach before the
	// argument being read can complete: its header was read and its bytes
	// are still arriving.
	need int64
}

// advance parses buf, which holds a request from its first byte, from
// where p stopped. It reports whether the request is complete (p.pos is
// then its length) and returns a protocol error as soon as the bytes show
// one. When args is not nil every argument completed by this call is
// appended to it as a slice of buf: a caller that wants all of them starts
// from the zero progress.
func (p *progress) advance(buf []byte, lim Limits, args *[][]byte) (bool, error) {
	if len(buf) == 0 {
		return false, nil
	}
	if buf[0] != '*' {
		return p.inline(buf, lim, args)
	}
	if p.pos == 0 {
		if read, err := p.countLine(buf, lim); err != nil || !read {
			return false, err
		}
		if p.count <= 0 {
			return true, nil
		}
	}
	p.need = 0
	for p.parsed < p.count {
		if read, err := p.bulk(buf, lim, args); err != nil || !read {
			return false, err
		}
	}
	return true, nil
}

// countLine reads the "*N\r\n" line that opens a multibulk request,
// reporting whether it is complete (p.pos and p.count are then set).
func (p *progress) countLine(buf []byte, lim Limits) (bool, error) {
	nl := bytes.IndexByte(buf, '\n')
	if nl < 0 {
		if len(buf) > lim.MaxInlineLen {
			return false, protoErr("too big mbulk count string")
		}
		return false, nil
	}
	if nl == 0 || buf[nl-1] != '\r' {
		// Redis searches for "\r": a lone "\n" is not a line end.
		cr := bytes.IndexByte(buf, '\r')
		if cr < 0 || cr+1 >= len(buf) {
			if len(buf) > lim.MaxInlineLen {
				return false, protoErr("too big mbulk count string")
			}
			return false, nil
		}
		nl = cr + 1
		if buf[nl] != '\n' {
			return false, protoErr("invalid multibulk length")
		}
	}
	if nl-1 > lim.MaxInlineLen {
		return false, protoErr("too big mbulk count string")
	}
	count, ok := parseLen(buf[1 : nl-1])
	if !ok || count > lim.MaxMultibulkLen {
		return false, protoErr("invalid multibulk length")
	}
	if lim.Unauthenticated && count > 10 {
		return false, protoErr("unauthenticated multibulk length")
	}
	p.pos, p.count = nl+1, count
	return true, nil
}

// bulk reads the next "$len\r\ndata\r\n" argument at p.pos, reporting
// whether it is complete (it is then appended to args when args is not
// nil, and p moves past it). While its data is still arriving p.need is
// the buffer length it needs.
func (p *progress) bulk(buf []byte, lim Limits, args *[][]byte) (bool, error) {
	if p.pos >= len(buf) {
		return false, nil
	}
	rest := buf[p.pos:]
	nl := bytes.IndexByte(rest, '\r')
	if nl < 0 || nl+1 >= len(rest) {
		if len(rest) > lim.MaxInlineLen {
			return false, protoErr("too big bulk count string")
		}
		return false, nil
	}
	if nl > lim.MaxInlineLen {
		return false, protoErr("too big bulk count string")
	}
	if rest[0] != '$' {
		return false, protoErr("expected '$', got '" + string(rest[0]) + "'")
	}
	n, ok := parseLen(rest[1:nl])
	if !ok || n < 0 || n > lim.MaxBulkLen {
		return false, protoErr("invalid bulk length")
	}
	if lim.Unauthenticated && n > 16384 {
		return false, protoErr("unauthenticated bulk length")
	}
	start := p.pos + nl + 2
	if n > int64(len(buf)-start-2) {
		// Compared so, start+n+2 cannot overflow whatever
		// proto-max-bulk-len allows.
		p.need = int64(start) + min(n, math.MaxInt64-int64(start)-2) + 2
		return false, nil
	}
	end := start + int(n)
	if args != nil {
		*args = append(*args, buf[start:end:end])
	}
	p.pos = end + 2 // like Redis, the two bytes after the data are not checked
	p.parsed++
	return true, nil
}

// inline parses an inline request: words separated by spaces, with
// Redis's double- and single-quote rules. p.pos is how far the line end
// was already searched for.
func (p *progress) inline(buf []byte, lim Limits, args *[][]byte) (bool, error) {
	i := bytes.IndexByte(buf[p.pos:], '\n')
	if i < 0 {
		if len(buf) > lim.MaxInlineLen {
			return false, protoErr("too big inline request")
		}
		p.pos = len(buf)
		return false, nil
	}
	nl := p.pos + i
	line := buf[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	var words [][]byte
	if args != nil {
		words = *args
	}
	mark := len(words)
	words, ok := splitArgs(line, words)
	if !ok {
		return false, protoErr("unbalanced quotes in request")
	}
	if lim.Unauthenticated && len(words)-mark > 10 {
		return false, protoErr("unauthenticated multibulk length")
	}
	if args != nil {
		*args = words
	}
	p.pos = nl + 1
	return true, nil
}

// parseLen parses a length as Redis's string2ll: digits with an optional
// minus sign.
func parseLen(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || b[0] == '+' || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	return n, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// splitArgs is Redis's sdssplitargs; every word is a new slice.
func splitArgs(line []byte, args [][]byte) ([][]byte, bool) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return args, true
		}
		word, next, ok := splitWord(line, p)
		if !ok {
			return args, false
		}
		args = append(args, word)
		p = next
	}
}

// splitWord reads the word that starts at line[p]: bytes up to a
// separator (which it consumes), or up to a quote, whose quoted part ends
// the word. It returns the word and where the rest of the line starts; ok
// is false for unbalanced quotes.
func splitWord(line []byte, p int) (word []byte, next int, ok bool) {
	word = []byte{}
	for ; p < len(line); p++ {
		switch line[p] {
		case ' ', '\n', '\r', '\t', 0:
			return word, p + 1, true
		case '"':
			return doubleQuoted(line, p+1, word)
		case '\'':
			return singleQuoted(line, p+1, word)
		}
		word = append(word, line[p])
	}
	return word, p, true
}

// doubleQuoted appends to word the double-quoted part from line[p] on,
// with its escapes (\xHH, \n, \r, \t, \b, \a, and \ before any other
// byte), up to its closing quote, which must be followed by a space or
// the end of the line.
func doubleQuoted(line []byte, p int, word []byte) ([]byte, int, bool) {
	for ; p < len(line); p++ {
		switch c := line[p]; {
		case c == '\\' && p+3 < len(line) && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]):
			word = append(word, hexVal(line[p+2])*16+hexVal(line[p+3]))
			p += 3
		case c == '\\' && p+1 < len(line):
			p++
			word = append(word, unescape(line[p]))
		case c == '"':
			if p+1 < len(line) && !isSpace(line[p+1]) {
				return nil, 0, false
			}
			return word, p + 1, true
		default:
			word = append(word, c)
		}
	}
	return nil, 0, false
}

// unescape is the byte that a backslash followed by c stands for inside
// double quotes.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

// singleQuoted appends to word the single-quoted part from line[p] on (\'
// stands for a quote, nothing else is escaped) up to its closing quote,
// which must be followed by a space or the end of the line.
func singleQuoted(line []byte, p int, word []byte) ([]byte, int, bool) {
	for ; p < len(line); p++ {
		switch {
		case line[p] == '\\' && p+1 < len(line) && line[p+1] == '\'':
			p++
			word = append(word, '\'')
		case line[p] == '\'':
			if p+1 < len(line) && !isSpace(line[p+1]) {
				return nil, 0, false
			}
			return word, p + 1, true
		default:
			word = append(word, line[p])
		}
	}
	return nil, 0, false
}
