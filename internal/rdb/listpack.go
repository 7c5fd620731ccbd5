package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Listpacks: a 4-byte total length and a 2-byte element count (65535 when
// there are more), the entries, and an end byte 0xff. An entry is its
// encoding and data followed by the length of the two (backlen, 1 to 5
// bytes, 7 bits each, read from the end). Strings that parse as integers
// are stored as integers of the smallest of 7, 13, 16, 24, 32 or 64 bits;
// other strings have a 6-bit, 12-bit or 32-bit length.

var errListpack = errors.New("rdb: corrupt listpack")

const lpEnd = 0xff

// listpackBuilder appends entries to a listpack under construction.
type listpackBuilder struct {
	b []byte
	n int
}

func newListpack() *listpackBuilder {
	return &listpackBuilder{b: make([]byte, 6, 64)}
}

// add appends one element, as an integer when it is one.
func (lp *listpackBuilder) add(s []byte) {
	start := len(lp.b)
	if v, ok := parseInt(s); ok {
		lp.b = appendLPInt(lp.b, v)
	} else {
		lp.b = appendLPString(lp.b, s)
	}
	lp.b = appendBacklen(lp.b, len(lp.b)-start)
	lp.n++
}

// bytes finishes the listpack.
func (lp *listpackBuilder) bytes() []byte {
	out := append(lp.b, lpEnd)
	binary.LittleEndian.PutUint32(out[0:4], uint32(len(out)))
	binary.LittleEndian.PutUint16(out[4:6], uint16(min(lp.n, 65535)))
	return out
}

func appendLPInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & 0x1fff
		return append(b, byte(u>>8)|0xc0, byte(u))
	case v >= -32768 && v <= 32767:
		return binary.LittleEndian.AppendUint16(append(b, 0xf1), uint16(v))
	case v >= -8388608 && v <= 8388607:
		u := uint32(v)
		return append(b, 0xf2, byte(u), byte(u>>8), byte(u>>16))
	case v >= -2147483648 && v <= 2147483647:
		return binary.LittleEndian.AppendUint32(append(b, 0xf3), uint32(v))
	default:
		return binary.LittleEndian.AppendUint64(append(b, 0xf4), uint64(v))
	}
}

func appendLPString(b, s []byte) []byte {
	switch n := len(s); {
	case n < 64:
		b = append(b, 0x80|byte(n))
	case n < 4096:
		b = append(b, 0xe0|byte(n>>8), byte(n))
	default:
		b = binary.LittleEndian.AppendUint32(append(b, 0xf0), uint32(n))
	}
	return append(b, s...)
}

func appendBacklen(b []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	default:
		return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
}

// readListpack returns the elements of a listpack, integers as decimal
// strings, checking its whole structure.
func readListpack(b []byte) ([][]byte, error) {
	if len(b) < 7 || int(binary.LittleEndian.Uint32(b[0:4])) != len(b) || b[len(b)-1] != lpEnd {
		return nil, errListpack
	}
	count := int(binary.LittleEndian.Uint16(b[4:6]))
	var out [][]byte
	p := 6
	for p < len(b)-1 {
		start := p
		c := b[p]
		var el []byte
		need := func(n int) bool { return p+n <= len(b)-1 }
		switch {
		case c&0x80 == 0:
			el = strconv.AppendInt(nil, int64(c), 10)
			p++
		case c&0xc0 == 0x80:
			n := int(c & 0x3f)
			if !need(1 + n) {
				return nil, errListpack
			}
			el = append([]byte{}, b[p+1:p+1+n]...)
			p += 1 + n
		case c&0xe0 == 0xc0:
			if !need(2) {
				return nil, errListpack
			}
			u := int64(c&0x1f)<<8 | int64(b[p+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			el = strconv.AppendInt(nil, u, 10)
			p += 2
		case c&0xf0 == 0xe0:
			if !need(2) {
				return nil, errListpack
			}
			n := int(c&0x0f)<<8 | int(b[p+1])
			if !need(2 + n) {
				return nil, errListpack
			}
			el = append([]byte{}, b[p+2:p+2+n]...)
			p += 2 + n
		case c == 0xf0:
			if !need(5) {
				return nil, errListpack
			}
			n := int(binary.LittleEndian.Uint32(b[p+1 : p+5]))
			if n < 0 || !need(5+n) {
				return nil, errListpack
			}
			el = append([]byte{}, b[p+5:p+5+n]...)
			p += 5 + n
		case c == 0xf1:
			if !need(3) {
				return nil, errListpack
			}
			el = strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b[p+1:]))), 10)
			p += 3
		case c == 0xf2:
			if !need(4) {
				return nil, errListpack
			}
			u := int32(uint32(b[p+1])|uint32(b[p+2])<<8|uint32(b[p+3])<<16) << 8 >> 8
			el = strconv.AppendInt(nil, int64(u), 10)
			p += 4
		case c == 0xf3:
			if !need(5) {
				return nil, errListpack
			}
			el = strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b[p+1:]))), 10)
			p += 5
		case c == 0xf4:
			if !need(9) {
				return nil, errListpack
			}
			el = strconv.AppendInt(nil, int64(binary.LittleEndian.Uint64(b[p+1:])), 10)
			p += 9
		default:
			return nil, errListpack
		}
		bl := appendBacklen(nil, p-start)
		if p+len(bl) > len(b)-1 || string(b[p:p+len(bl)]) != string(bl) {
			return nil, errListpack
		}
		p += len(bl)
		out = append(out, el)
	}
	if p != len(b)-1 || (count != 65535 && count != len(out)) {
		return nil, errListpack
	}
	return out, nil
}
