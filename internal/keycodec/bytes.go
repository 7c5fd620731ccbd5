package keycodec

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// Escaped byte strings: 0x00 becomes 0x00 0xFF and the string ends with
// 0x00 0x01. The terminator sorts below every escaped byte, so a string
// sorts before its extensions, and the encoding is prefix-free, so what
// follows it cannot change the order of two different strings.
const (
	escByte  byte = 0x00
	escZero  byte = 0xFF // 0x00 0xFF stands for a 0x00 byte of the string
	escTerm  byte = 0x01 // 0x00 0x01 ends the string
	maxOrdLn      = 8    // longest big-endian body of an ordered uint
)

// appendEscaped appends s escaped and terminated.
func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escZero)
		s = s[i+1:]
	}
	return append(dst, escByte, escTerm)
}

// appendEscapedBytes is appendEscaped for a byte slice (raw BSON strings).
func appendEscapedBytes(dst []byte, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escZero)
		s = s[i+1:]
	}
	return append(dst, escByte, escTerm)
}

// appendOrdUint appends u as a length byte (0..8) followed by the minimal
// big-endian bytes of u. A longer body means a larger number, so the
// encoding orders like the integers and is prefix-free.
func appendOrdUint(dst []byte, u uint64) []byte {
	n := (bits.Len64(u) + 7) / 8
	dst = append(dst, byte(n))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], u)
	return append(dst, b[8-n:]...)
}

// appendUint32 and friends append fixed-width big-endian integers.
func appendUint32(dst []byte, u uint32) []byte { return binary.BigEndian.AppendUint32(dst, u) }

func appendUint64(dst []byte, u uint64) []byte { return binary.BigEndian.AppendUint64(dst, u) }

// invert flips every byte of b in place. Inverting a prefix-free,
// order-preserving encoding gives a prefix-free encoding of the reverse
// order: this is how descending key parts are built.
func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}
