package kv

import (
	"encoding/binary"
	"math"
	"strconv"
)

// StreamID is the ID of a stream entry: a millisecond time and a sequence
// number within it, ordered by (Ms, Seq).
type StreamID struct {
	Ms, Seq uint64
}

// MaxStreamID is the largest ID ("+").
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// String returns the ID as clients write it: "<ms>-<seq>".
func (id StreamID) String() string {
	b := strconv.AppendUint(make([]byte, 0, 41), id.Ms, 10)
	b = append(b, '-')
	return string(strconv.AppendUint(b, id.Seq, 10))
}

// Compare returns -1, 0 or 1 as id is less than, equal to or greater
// than o.
func (id StreamID) Compare(o StreamID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether id is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// Next returns the ID just after id; ok is false for MaxStreamID.
func (id StreamID) Next() (StreamID, bool) {
	switch {
	case id.Seq < math.MaxUint64:
		return StreamID{id.Ms, id.Seq + 1}, true
	case id.Ms < math.MaxUint64:
		return StreamID{id.Ms + 1, 0}, true
	}
	return id, false
}

// Prev returns the ID just before id; ok is false for 0-0.
func (id StreamID) Prev() (StreamID, bool) {
	switch {
	case id.Seq > 0:
		return StreamID{id.Ms, id.Seq - 1}, true
	case id.Ms > 0:
		return StreamID{id.Ms - 1, math.MaxUint64}, true
	}
	return id, false
}

// encode appends the 16-byte big-endian form, whose byte order is ID order.
func (id StreamID) encode(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

func decodeStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:16])}
}

// streamIDMaxLen is the longest argument accepted as an ID.
const streamIDMaxLen = 127

// ParseStreamID parses an ID argument as Redis does: "<ms>-<seq>", or
// "<ms>" alone with missingSeq as the sequence; "-" and "+" are the
// smallest and largest IDs unless strict. With allowSeqStar the form
// "<ms>-*" is accepted and seqGiven reports false for it (XADD). ok is
// false for anything else.
func ParseStreamID(b []byte, missingSeq uint64, strict, allowSeqStar bool) (id StreamID, seqGiven, ok bool) {
	if len(b) > streamIDMaxLen {
		return id, false, false
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return id, false, false
		}
		if b[0] == '-' {
			return StreamID{}, true, true
		}
		return MaxStreamID, true, true
	}
	msPart, seqPart, dash := b, []byte(nil), false
	for i, c := range b {
		if c == '-' {
			msPart, seqPart, dash = b[:i], b[i+1:], true
			break
		}
	}
	ms, ok := parseUint64C(msPart)
	if !ok {
		return id, false, false
	}
	seq := missingSeq
	seqGiven = true
	if dash {
		if allowSeqStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = parseUint64C(seqPart); !ok {
			return id, false, false
		}
	}
	return StreamID{ms, seq}, seqGiven, true
}

// ParseIntervalID parses one end of an XRANGE interval: "(" before an ID
// makes it exclusive (and "-" or "+" invalid after it).
func ParseIntervalID(b []byte, missingSeq uint64) (id StreamID, excl, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, _, ok = ParseStreamID(b[1:], missingSeq, true, false)
		return id, true, ok
	}
	id, _, ok = ParseStreamID(b, missingSeq, false, false)
	return id, false, ok
}

// parseUint64C parses an unsigned number as C's strtoull with Redis's
// checks: the whole string, optional leading white space and sign, no
// overflow; a canonical negative number is refused.
func parseUint64C(b []byte) (uint64, bool) {
	if n, ok := ParseInt(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}
