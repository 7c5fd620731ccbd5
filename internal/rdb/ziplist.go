package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Ziplists (read only; Redis 7.0 still loads them from older payloads): a
// 4-byte total length, a 4-byte offset of the last entry, a 2-byte count
// (65535 when there are more), the entries and an end byte 0xff. An entry
// is the previous entry's length (1 byte, or 0xfe and 4 bytes), an
// encoding (strings of 6-bit, 14-bit or 32-bit length; integers of 8, 16,
// 24, 32 or 64 bits, or 0 to 12 in the encoding byte itself) and its data.

var errZiplist = errors.New("rdb: corrupt ziplist")

func readZiplist(b []byte) ([][]byte, error) {
	if len(b) < 11 || int(binary.LittleEndian.Uint32(b[0:4])) != len(b) || b[len(b)-1] != 0xff {
		return nil, errZiplist
	}
	tail := int(binary.LittleEndian.Uint32(b[4:8]))
	count := int(binary.LittleEndian.Uint16(b[8:10]))
	var out [][]byte
	p, prev, last := 10, 0, 10
	for p < len(b)-1 {
		start := p
		// the previous entry's length
		if b[p] < 0xfe {
			if int(b[p]) != prev {
				return nil, errZiplist
			}
			p++
		} else if b[p] == 0xfe {
			if p+5 > len(b)-1 || int(binary.LittleEndian.Uint32(b[p+1:p+5])) != prev {
				return nil, errZiplist
			}
			p += 5
		} else {
			return nil, errZiplist
		}
		if p >= len(b)-1 {
			return nil, errZiplist
		}
		c := b[p]
		need := func(n int) bool { return p+n <= len(b)-1 }
		var el []byte
		switch {
		case c>>6 == 0:
			n := int(c & 0x3f)
			if !need(1 + n) {
				return nil, errZiplist
			}
			el = append([]byte{}, b[p+1:p+1+n]...)
			p += 1 + n
		case c>>6 == 1:
			if !need(2) {
				return nil, errZiplist
			}
			n := int(c&0x3f)<<8 | int(b[p+1])
			if !need(2 + n) {
				return nil, errZiplist
			}
			el = append([]byte{}, b[p+2:p+2+n]...)
			p += 2 + n
		case c == 0x80:
			if !need(5) {
				return nil, errZiplist
			}
			n := int(binary.BigEndian.Uint32(b[p+1 : p+5]))
			if !need(5 + n) {
				return nil, errZiplist
			}
			el = append([]byte{}, b[p+5:p+5+n]...)
			p += 5 + n
		case c == 0xc0:
			if !need(3) {
				return nil, errZiplist
			}
			el = strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b[p+1:]))), 10)
			p += 3
		case c == 0xd0:
			if !need(5) {
				return nil, errZiplist
			}
			el = strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b[p+1:]))), 10)
			p += 5
		case c == 0xe0:
			if !need(9) {
				return nil, errZiplist
			}
			el = strconv.AppendInt(nil, int64(binary.LittleEndian.Uint64(b[p+1:])), 10)
			p += 9
		case c == 0xf0:
			if !need(4) {
				return nil, errZiplist
			}
			u := int32(uint32(b[p+1])<<8|uint32(b[p+2])<<16|uint32(b[p+3])<<24) >> 8
			el = strconv.AppendInt(nil, int64(u), 10)
			p += 4
		case c == 0xfe:
			if !need(2) {
				return nil, errZiplist
			}
			el = strconv.AppendInt(nil, int64(int8(b[p+1])), 10)
			p += 2
		case c >= 0xf1 && c <= 0xfd:
			el = strconv.AppendInt(nil, int64(c&0x0f)-1, 10)
			p++
		default:
			return nil, errZiplist
		}
		prev, last = p-start, start
		out = append(out, el)
	}
	if p != len(b)-1 || (count != 65535 && count != len(out)) || (len(out) > 0 && tail != last) || (len(out) == 0 && tail != 10) {
		return nil, errZiplist
	}
	return out, nil
}

// readZipmap returns the field-value pairs of a zipmap, the oldest hash
// encoding: a 1-byte count, then each field and value with their lengths
// (1 byte, or 0xfe and 4 bytes), a value followed by a free byte count and
// that many unused bytes, and an end byte 0xff.
func readZipmap(b []byte) ([][]byte, error) {
	if len(b) < 2 || b[len(b)-1] != 0xff {
		return nil, errZiplist
	}
	p := 1
	readLen := func() (int, bool) {
		if p >= len(b)-1 {
			return 0, false
		}
		if b[p] < 0xfe {
			p++
			return int(b[p-1]), true
		}
		if b[p] == 0xfe && p+5 <= len(b)-1 {
			n := int(binary.LittleEndian.Uint32(b[p+1 : p+5]))
			p += 5
			return n, true
		}
		return 0, false
	}
	var out [][]byte
	for p < len(b)-1 {
		n, ok := readLen()
		if !ok || p+n > len(b)-1 {
			return nil, errZiplist
		}
		field := append([]byte{}, b[p:p+n]...)
		p += n
		n, ok = readLen()
		if !ok || p+1+n > len(b)-1 {
			return nil, errZiplist
		}
		free := int(b[p])
		p++
		val := append([]byte{}, b[p:p+n]...)
		p += n + free
		if p > len(b)-1 {
			return nil, errZiplist
		}
		out = append(out, field, val)
	}
	if zmlen := int(b[0]); zmlen < 254 && zmlen != len(out)/2 {
		return nil, errZiplist
	}
	return out, nil
}
