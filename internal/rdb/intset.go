package rdb

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
)

// Intsets: a 4-byte width (2, 4 or 8 bytes per integer), a 4-byte count,
// then the integers in ascending order, all little-endian.

var errIntset = errors.New("rdb: corrupt intset")

// buildIntset encodes distinct integers.
func buildIntset(vals []int64) []byte {
	slices.Sort(vals)
	width := 2
	for _, v := range vals {
		switch {
		case v < -2147483648 || v > 2147483647:
			width = 8
		case (v < -32768 || v > 32767) && width < 4:
			width = 4
		}
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// readIntset returns the integers of an intset as decimal strings; they
// must be strictly ascending.
func readIntset(b []byte) ([][]byte, error) {
	if len(b) < 8 {
		return nil, errIntset
	}
	width := int(binary.LittleEndian.Uint32(b[0:4]))
	n := int(binary.LittleEndian.Uint32(b[4:8]))
	if (width != 2 && width != 4 && width != 8) || n < 0 || (len(b)-8)/width != n || (len(b)-8)%width != 0 {
		return nil, errIntset
	}
	out := make([][]byte, 0, n)
	var prev int64
	for i := range n {
		p := b[8+i*width:]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, errIntset
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}
