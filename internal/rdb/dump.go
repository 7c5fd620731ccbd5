package rdb

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
)

// Dump serializes v as DUMP does under c: the object, the RDB version and
// the checksum.
func Dump(v *Value, c Config) []byte {
	w := writer{compress: c.Compression}
	switch v.Kind {
	case String:
		w.byte(typeString)
		w.string(v.Str)
	case List:
		w.byte(typeListQuicklist2)
		w.quicklist(v.Items, c.ListMaxListpackSize)
	case Set:
		if setIsIntset(v.Items, c) {
			vals := make([]int64, len(v.Items))
			for i, it := range v.Items {
				vals[i], _ = parseInt(it)
			}
			w.byte(typeSetIntset)
			w.string(buildIntset(vals))
		} else {
			w.byte(typeSet)
			w.length(uint64(len(v.Items)))
			for _, it := range v.Items {
				w.string(it)
			}
		}
	case Hash:
		if hashIsListpack(v.Pairs, c) {
			lp := newListpack()
			for _, p := range v.Pairs {
				lp.add(p.Field)
				lp.add(p.Value)
			}
			w.byte(typeHashListpack)
			w.string(lp.bytes())
		} else {
			w.byte(typeHash)
			w.length(uint64(len(v.Pairs)))
			for _, p := range v.Pairs {
				w.string(p.Field)
				w.string(p.Value)
			}
		}
	case ZSet:
		ms := slices.Clone(v.Members)
		slices.SortFunc(ms, func(a, b Member) int {
			if c := cmp.Compare(a.Score, b.Score); c != 0 {
				return c
			}
			return bytes.Compare(a.Member, b.Member)
		})
		if zsetIsListpack(ms, c) {
			lp := newListpack()
			for _, m := range ms {
				lp.add(m.Member)
				lp.add(formatScore(m.Score))
			}
			w.byte(typeZSetListpack)
			w.string(lp.bytes())
		} else {
			// from the highest score down, as Redis walks its skiplist
			w.byte(typeZSet2)
			w.length(uint64(len(ms)))
			for i := len(ms) - 1; i >= 0; i-- {
				w.string(ms[i].Member)
				w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(ms[i].Score))
			}
		}
	case Stream:
		w.byte(typeStreamLP2)
		w.stream(v.Stream)
	}
	w.b = binary.LittleEndian.AppendUint16(w.b, Version)
	return binary.LittleEndian.AppendUint64(w.b, checksum(w.b))
}

// formatScore writes a score as Redis stores it in a listpack: integers
// (in the range where a double holds them exactly) as integers, others
// with 17 significant digits.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	case f == 0:
		return []byte("0")
	case f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f):
		return strconv.AppendInt(nil, int64(f), 10)
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64) // as C's %.17g
}

// writer appends RDB encodings.
type writer struct {
	b        []byte
	compress bool
}

func (w *writer) byte(c byte) { w.b = append(w.b, c) }

// length writes an RDB length: 6 bits, 14 bits, or 0x80 and 32 bits, or
// 0x81 and 64 bits (big-endian).
func (w *writer) length(n uint64) {
	switch {
	case n < 1<<6:
		w.b = append(w.b, byte(n))
	case n < 1<<14:
		w.b = append(w.b, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		w.b = binary.BigEndian.AppendUint32(append(w.b, 0x80), uint32(n))
	default:
		w.b = binary.BigEndian.AppendUint64(append(w.b, 0x81), n)
	}
}

// string writes a string as Redis's rdbSaveRawString does: up to 11 bytes
// that are a decimal integer of 32 bits as an integer, more than 20 bytes
// LZF-compressed when compression is on and saves more than 4 bytes, the
// rest plainly.
func (w *writer) string(s []byte) {
	if len(s) <= 11 {
		if v, ok := parseInt(s); ok {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				w.b = append(w.b, 0xc0|encInt8, byte(v))
				return
			case v >= math.MinInt16 && v <= math.MaxInt16:
				w.b = binary.LittleEndian.AppendUint16(append(w.b, 0xc0|encInt16), uint16(v))
				return
			case v >= math.MinInt32 && v <= math.MaxInt32:
				w.b = binary.LittleEndian.AppendUint32(append(w.b, 0xc0|encInt32), uint32(v))
				return
			}
		}
	}
	if w.compress && len(s) > 20 {
		if c := lzfCompress(s, len(s)-4); c != nil {
			w.b = append(w.b, 0xc0|encLZF)
			w.length(uint64(len(c)))
			w.length(uint64(len(s)))
			w.b = append(w.b, c...)
			return
		}
	}
	w.length(uint64(len(s)))
	w.b = append(w.b, s...)
}

// The node size classes of a negative list-max-listpack-size, and the
// size no node grows past by count alone.
var nodeSizeClasses = [...]int{4096, 8192, 16384, 32768, 65536}

const nodeSafetyLimit = 8192

// quicklist writes items as a quicklist of listpack nodes, filled as
// RPUSH fills them under list-max-listpack-size fill.
func (w *writer) quicklist(items [][]byte, fill int64) {
	fill = max(min(fill, 1<<15-1), -5)
	var nodes [][]byte
	lp := newListpack()
	count := 0
	for _, it := range items {
		if count > 0 && !nodeAllows(len(lp.b)+1, count, fill, len(it)) {
			nodes = append(nodes, lp.bytes())
			lp, count = newListpack(), 0
		}
		lp.add(it)
		count++
	}
	if count > 0 {
		nodes = append(nodes, lp.bytes())
	}
	w.length(uint64(len(nodes)))
	for _, n := range nodes {
		w.length(nodePacked)
		w.string(n)
	}
}

// nodeAllows reports whether a node of size bytes holding count elements
// takes one more of n bytes: its estimated size must be within the size
// class of a negative fill, or else within the safety limit with fewer
// than a positive fill's elements.
func nodeAllows(size, count int, fill int64, n int) bool {
	newSize := size + n + 8
	if fill < 0 {
		if newSize <= nodeSizeClasses[-fill-1] {
			return true
		}
	}
	if newSize > nodeSafetyLimit {
		return false
	}
	return int64(count) < fill
}
