package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// bitsPred is $bitsAllSet, $bitsAllClear, $bitsAnySet or $bitsAnyClear over
// integral numbers (two's complement, sign-extended) and binData (bytes
// little-endian by position).
type bitsPred struct {
	op        string
	positions []uint32
}

func parseBits(op string, arg any) (*bitsPred, error) {
	bp := &bitsPred{op: op}
	switch {
	case IsNumber(arg):
		n, ok := coerceInt64(arg)
		if !ok || !isIntegral(arg) {
			return nil, badValue("%s cannot represent as a 64-bit integer: %s", op, formatNumber(arg))
		}
		if n < 0 {
			return nil, badValue("%s cannot be a negative number: %s", op, formatNumber(arg))
		}
		for i := uint32(0); i < 63; i++ {
			if n&(1<<i) != 0 {
				bp.positions = append(bp.positions, i)
			}
		}
	case TypeOf(arg) == bson.TypeBinary:
		b := binaryValue(arg)
		for i, by := range b.Data {
			for j := uint32(0); j < 8; j++ {
				if by&(1<<j) != 0 {
					bp.positions = append(bp.positions, uint32(i)*8+j)
				}
			}
		}
	default:
		arr, ok := AsArray(arg)
		if !ok {
			return nil, badValue("%s takes an Array, a number, or a BinData but received: %s", op, TypeName(arg))
		}
		for _, v := range arr {
			if !IsNumber(v) {
				return nil, badValue("bit positions must be an integer but got: %s", TypeName(v))
			}
			n, ok := coerceInt64(v)
			if !ok || !isIntegral(v) {
				return nil, badValue("bit positions must be an integer but got: %s", formatNumber(v))
			}
			if n < 0 {
				return nil, badValue("bit positions must be >= 0 but got: %s", formatNumber(v))
			}
			if n > 1<<31-1 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "bit positions cannot be represented as a 32-bit signed integer: %s", formatNumber(v))
			}
			bp.positions = append(bp.positions, uint32(n))
		}
	}
	return bp, nil
}

func (p *bitsPred) matches(c Candidate) (bool, int) {
	if c.Missing {
		return false, -1
	}
	var bit func(pos uint32) bool
	switch {
	case IsNumber(c.Value):
		if !isIntegral(c.Value) {
			return false, -1
		}
		n, ok := coerceInt64(c.Value)
		if !ok {
			return false, -1
		}
		bit = func(pos uint32) bool {
			if pos >= 64 {
				return n < 0 // sign extension
			}
			return n&(1<<pos) != 0
		}
	case TypeOf(c.Value) == bson.TypeBinary:
		data := binaryValue(c.Value).Data
		bit = func(pos uint32) bool {
			i := pos / 8
			if int(i) >= len(data) {
				return false
			}
			return data[i]&(1<<(pos%8)) != 0
		}
	default:
		return false, -1
	}
	switch p.op {
	case "$bitsAllSet":
		for _, pos := range p.positions {
			if !bit(pos) {
				return false, -1
			}
		}
		return true, -1
	case "$bitsAllClear":
		for _, pos := range p.positions {
			if bit(pos) {
				return false, -1
			}
		}
		return true, -1
	case "$bitsAnySet":
		for _, pos := range p.positions {
			if bit(pos) {
				return true, -1
			}
		}
		return false, -1
	}
	for _, pos := range p.positions {
		if !bit(pos) {
			return true, -1
		}
	}
	return false, -1
}
