package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// The errors of Load.
var (
	// ErrVersion is a payload too short to hold a footer, of an RDB
	// version above 10, or whose checksum is wrong.
	ErrVersion = errors.New("rdb: payload version or checksum are wrong")
	// ErrBadFormat is a payload that does not hold one value of a type
	// this package loads.
	ErrBadFormat = errors.New("rdb: bad data format")
)

// Verify checks a payload's footer: its RDB version and checksum.
func Verify(payload []byte) error {
	if len(payload) < 10 {
		return ErrVersion
	}
	n := len(payload)
	if binary.LittleEndian.Uint16(payload[n-10:]) > Version {
		return ErrVersion
	}
	if binary.LittleEndian.Uint64(payload[n-8:]) != checksum(payload[:n-8]) {
		return ErrVersion
	}
	return nil
}

// Load verifies a payload and decodes its value.
func Load(payload []byte) (*Value, error) {
	if err := Verify(payload); err != nil {
		return nil, err
	}
	r := reader{b: payload[:len(payload)-10]}
	v, err := r.object()
	if err != nil || r.p != len(r.b) {
		return nil, ErrBadFormat
	}
	return v, nil
}

// reader decodes RDB encodings; any failure is ErrBadFormat.
type reader struct {
	b []byte
	p int
}

func (r *reader) byte() (byte, error) {
	if r.p >= len(r.b) {
		return 0, ErrBadFormat
	}
	r.p++
	return r.b[r.p-1], nil
}

func (r *reader) take(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.p) {
		return nil, ErrBadFormat
	}
	s := r.b[r.p : r.p+int(n)]
	r.p += int(n)
	return s, nil
}

// lengthOrEnc reads a length, or the special encoding of a string (enc).
func (r *reader) lengthOrEnc() (n uint64, enc int, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), -1, nil
	case 1:
		d, err := r.byte()
		return uint64(c&0x3f)<<8 | uint64(d), -1, err
	case 2:
		switch c {
		case 0x80:
			b, err := r.take(4)
			if err != nil {
				return 0, 0, err
			}
			return uint64(binary.BigEndian.Uint32(b)), -1, nil
		case 0x81:
			b, err := r.take(8)
			if err != nil {
				return 0, 0, err
			}
			return binary.BigEndian.Uint64(b), -1, nil
		}
		return 0, 0, ErrBadFormat
	}
	return 0, int(c & 0x3f), nil
}

func (r *reader) length() (uint64, error) {
	n, enc, err := r.lengthOrEnc()
	if err == nil && enc >= 0 {
		err = ErrBadFormat
	}
	return n, err
}

// count reads a collection's length, which must be positive (Redis
// refuses empty keys) and, as each element takes at least one byte, no
// more than the bytes left.
func (r *reader) count() (int, error) {
	n, err := r.length()
	if err != nil {
		return 0, err
	}
	if n == 0 || n > uint64(len(r.b)-r.p) {
		return 0, ErrBadFormat
	}
	return int(n), nil
}

func (r *reader) string() ([]byte, error) {
	n, enc, err := r.lengthOrEnc()
	if err != nil {
		return nil, err
	}
	switch enc {
	case -1:
		s, err := r.take(n)
		return append([]byte{}, s...), err
	case encInt8:
		c, err := r.byte()
		return strconv.AppendInt(nil, int64(int8(c)), 10), err
	case encInt16:
		b, err := r.take(2)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b))), 10), nil
	case encInt32:
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b))), 10), nil
	case encLZF:
		clen, err := r.length()
		if err != nil {
			return nil, err
		}
		ulen, err := r.length()
		if err != nil {
			return nil, err
		}
		c, err := r.take(clen)
		// LZF expands at most 88 times (a 3-byte reference copies up to
		// 264 bytes): a larger claimed length is corrupt.
		if err != nil || ulen == 0 || ulen > uint64(len(c))*88 {
			return nil, ErrBadFormat
		}
		out, err := lzfDecompress(c, int(ulen))
		if err != nil {
			return nil, ErrBadFormat
		}
		return out, nil
	}
	return nil, ErrBadFormat
}

// textScore reads a score of the old ZSET type: a length byte (253 NaN,
// 254 +inf, 255 -inf) and that many bytes of decimal text.
func (r *reader) textScore() (float64, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch c {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := r.take(uint64(c))
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, ErrBadFormat
	}
	return f, nil
}

func (r *reader) object() (*Value, error) {
	t, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch t {
	case typeString:
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Str: s}, nil
	case typeList:
		items, err := r.strings()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: List, Items: items}, nil
	case typeSet:
		items, err := r.strings()
		if err != nil {
			return nil, err
		}
		return newSet(items)
	case typeZSet, typeZSet2:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		ms := make([]Member, 0, min(n, 1024))
		for range n {
			m, err := r.string()
			if err != nil {
				return nil, err
			}
			var f float64
			if t == typeZSet {
				f, err = r.textScore()
			} else {
				var b []byte
				b, err = r.take(8)
				if err == nil {
					f = math.Float64frombits(binary.LittleEndian.Uint64(b))
				}
			}
			if err != nil {
				return nil, err
			}
			ms = append(ms, Member{Member: m, Score: f})
		}
		return newZSet(ms)
	case typeHash:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		flat := make([][]byte, 0, min(2*n, 2048))
		for range 2 * n {
			s, err := r.string()
			if err != nil {
				return nil, err
			}
			flat = append(flat, s)
		}
		return newHash(flat)
	case typeListQuicklist, typeListQuicklist2:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		var items [][]byte
		for range n {
			container := uint64(nodePacked)
			if t == typeListQuicklist2 {
				if container, err = r.length(); err != nil {
					return nil, err
				}
			}
			blob, err := r.string()
			if err != nil {
				return nil, err
			}
			switch {
			case container == nodePlain:
				items = append(items, blob)
				continue
			case container != nodePacked:
				return nil, ErrBadFormat
			}
			var els [][]byte
			if t == typeListQuicklist {
				els, err = readZiplist(blob)
			} else {
				els, err = readListpack(blob)
			}
			if err != nil {
				return nil, ErrBadFormat
			}
			items = append(items, els...) // an empty node is skipped, as Redis does
		}
		if len(items) == 0 {
			return nil, ErrBadFormat
		}
		return &Value{Kind: List, Items: items}, nil
	case typeHashZipmap, typeListZiplist, typeSetIntset, typeZSetZiplist, typeHashZiplist,
		typeHashListpack, typeZSetListpack, typeSetListpack:
		blob, err := r.string()
		if err != nil {
			return nil, err
		}
		var els [][]byte
		switch t {
		case typeHashZipmap:
			els, err = readZipmap(blob)
		case typeSetIntset:
			els, err = readIntset(blob)
		case typeListZiplist, typeZSetZiplist, typeHashZiplist:
			els, err = readZiplist(blob)
		default:
			els, err = readListpack(blob)
		}
		if err != nil || len(els) == 0 {
			return nil, ErrBadFormat
		}
		switch t {
		case typeListZiplist:
			return &Value{Kind: List, Items: els}, nil
		case typeSetIntset, typeSetListpack:
			return newSet(els)
		case typeZSetZiplist, typeZSetListpack:
			if len(els)%2 != 0 {
				return nil, ErrBadFormat
			}
			ms := make([]Member, 0, len(els)/2)
			for i := 0; i < len(els); i += 2 {
				f, err := strconv.ParseFloat(string(els[i+1]), 64)
				if err != nil {
					return nil, ErrBadFormat
				}
				ms = append(ms, Member{Member: els[i], Score: f})
			}
			return newZSet(ms)
		default:
			return newHash(els)
		}
	case typeStreamLP, typeStreamLP2:
		st, err := r.stream(t)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Stream, Stream: st}, nil
	}
	// modules and unknown types
	return nil, ErrBadFormat
}

// strings reads a count and that many strings.
func (r *reader) strings() ([][]byte, error) {
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, min(n, 1024))
	for range n {
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func newSet(items [][]byte) (*Value, error) {
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[string(it)]; dup {
			return nil, ErrBadFormat
		}
		seen[string(it)] = struct{}{}
	}
	return &Value{Kind: Set, Items: items}, nil
}

// newZSet checks a sorted set's members: distinct, no NaN score.
func newZSet(ms []Member) (*Value, error) {
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, dup := seen[string(m.Member)]; dup || math.IsNaN(m.Score) {
			return nil, ErrBadFormat
		}
		seen[string(m.Member)] = struct{}{}
	}
	return &Value{Kind: ZSet, Members: ms}, nil
}

// newHash pairs up fields and values, which must be distinct fields.
func newHash(flat [][]byte) (*Value, error) {
	if len(flat)%2 != 0 || len(flat) == 0 {
		return nil, ErrBadFormat
	}
	pairs := make([]Pair, 0, len(flat)/2)
	seen := make(map[string]struct{}, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		if _, dup := seen[string(flat[i])]; dup {
			return nil, ErrBadFormat
		}
		seen[string(flat[i])] = struct{}{}
		pairs = append(pairs, Pair{Field: flat[i], Value: flat[i+1]})
	}
	return &Value{Kind: Hash, Pairs: pairs}, nil
}
