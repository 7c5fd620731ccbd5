package resp

import (
	"math"
	"strconv"
	"strings"
)

// Writer appends RESP replies to a buffer, in RESP2 or RESP3 as the client
// chose with HELLO. It never fails: the connection flushes the buffer.
type Writer struct {
	buf   []byte
	proto int
}

// NewWriter returns a writer speaking protocol version proto (2 or 3).
func NewWriter(proto int) *Writer { return &Writer{proto: proto} }

// Bytes returns the buffered replies.
func (w *Writer) Bytes() []byte { return w.buf }

// Reset empties the buffer.
func (w *Writer) Reset() { w.buf = w.buf[:0] }

// Proto returns the protocol version.
func (w *Writer) Proto() int { return w.proto }

// SetProto changes the protocol version.
func (w *Writer) SetProto(p int) { w.proto = p }

// Len returns the number of buffered bytes.
func (w *Writer) Len() int { return len(w.buf) }

// Truncate drops everything after the first n bytes.
func (w *Writer) Truncate(n int) { w.buf = w.buf[:n] }

func (w *Writer) line(prefix byte, n int64) {
	w.buf = append(w.buf, prefix)
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, '\r', '\n')
}

// Simple writes a simple string (+OK).
func (w *Writer) Simple(s string) {
	w.buf = append(w.buf, '+')
	w.buf = appendClean(w.buf, s)
	w.buf = append(w.buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.buf = append(w.buf, "+OK\r\n"...) }

// Error writes an error; msg starts with its code (ERR, WRONGTYPE, ...).
// Newlines in msg become spaces so the reply stays one line.
func (w *Writer) Error(msg string) {
	w.buf = append(w.buf, '-')
	w.buf = appendClean(w.buf, msg)
	w.buf = append(w.buf, '\r', '\n')
}

func appendClean(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}

// Int writes an integer.
func (w *Writer) Int(n int64) { w.line(':', n) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.line('$', int64(len(b)))
	w.buf = append(w.buf, b...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.line('$', int64(len(s)))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null bulk string ($-1, or _ in RESP3).
func (w *Writer) Null() {
	if w.proto >= 3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "$-1\r\n"...)
}

// NullArray writes the null array (*-1, or _ in RESP3).
func (w *Writer) NullArray() {
	if w.proto >= 3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "*-1\r\n"...)
}

// Array writes an array header of n elements.
func (w *Writer) Array(n int) { w.line('*', int64(n)) }

// Map writes a map header of n pairs (an array of 2n in RESP2).
func (w *Writer) Map(n int) {
	if w.proto >= 3 {
		w.line('%', int64(n))
		return
	}
	w.line('*', int64(2*n))
}

// Set writes a set header (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.proto >= 3 {
		w.line('~', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Push writes an out-of-band push header (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.proto >= 3 {
		w.line('>', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Bool writes a boolean (the integers 1 and 0 in RESP2).
func (w *Writer) Bool(b bool) {
	if w.proto >= 3 {
		if b {
			w.buf = append(w.buf, "#t\r\n"...)
		} else {
			w.buf = append(w.buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// Double writes a double (a bulk string in RESP2), formatted as Redis's
// %.17g.
func (w *Writer) Double(f float64) {
	var s string
	switch {
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	case math.IsNaN(f):
		s = "nan"
	default:
		s = formatG17(f)
	}
	if w.proto >= 3 {
		w.buf = append(w.buf, ',')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

func formatG17(f float64) string {
	s := strconv.FormatFloat(f, 'g', 17, 64)
	// C's %g drops trailing zeros of the fraction and pads the exponent to
	// two digits; Go keeps neither convention, so adjust.
	mant, exp, hasExp := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	}
	if !hasExp {
		return mant
	}
	sign := exp[0]
	digits := exp[1:]
	if len(digits) < 2 {
		digits = "0" + digits
	}
	return mant + "e" + string(sign) + digits
}

// Verbatim writes a verbatim string of format "txt" (a bulk string in
// RESP2).
func (w *Writer) Verbatim(s string) {
	if w.proto >= 3 {
		w.line('=', int64(len(s)+4))
		w.buf = append(w.buf, "txt:"...)
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Raw appends bytes already in RESP form.
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Bool2 writes a boolean as the integer 1 or 0 in every protocol version,
// the way Redis answers SETNX, EXPIRE and friends.
func (w *Writer) Bool2(b bool) {
	if b {
		w.buf = append(w.buf, ":1\r\n"...)
	} else {
		w.buf = append(w.buf, ":0\r\n"...)
	}
}
