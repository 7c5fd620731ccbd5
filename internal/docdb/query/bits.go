package query

import (
	"fmt"
	"math"
	"strconv"

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

// parseBits parses the operand of op on the field path, with the errors of
// MongoDB's parseBitTest: a mask number must be a non-negative integer
// (FailedToParse, the BSONElement parser's words), every element of a
// position array too (BadValue, "Failed to parse bit position. ..."), and
// any other operand is BadValue naming the path.
func parseBits(path, op string, arg any) (*bitsPred, error) {
	bp := &bitsPred{op: op}
	switch {
	case IsNumber(arg):
		n, err := bitsInteger(op, arg)
		if err != nil {
			return nil, err
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
			return nil, badValue("%s takes an Array, a number, or a BinData but received: %s", path, bitsElemString(op, arg))
		}
		for i, v := range arr {
			n, err := bitsInteger(strconv.Itoa(i), v)
			if err != nil {
				e, _ := mongoerr.As(err)
				return nil, badValue("Failed to parse bit position. %s", e.Message)
			}
			if n > 1<<31-1 {
				return nil, mongoerr.Newf(mongoerr.BadValue, "bit positions cannot be represented as a 32-bit signed integer: %s", formatNumber(v))
			}
			bp.positions = append(bp.positions, uint32(n))
		}
	}
	return bp, nil
}

// bitsInteger is MongoDB's parseIntegerElementToNonNegativeLong for the
// element key: v.
func bitsInteger(key string, v any) (int64, error) {
	elem := bitsElemString(key, v)
	if !IsNumber(v) {
		return 0, failedToParse("Expected a number in: %s", elem)
	}
	if isNaN(v) {
		return 0, failedToParse("Expected an integer, but found NaN in: %s", elem)
	}
	n, ok := coerceInt64(v)
	if !ok {
		return 0, failedToParse("Cannot represent as a 64-bit integer: %s", elem)
	}
	if !isIntegral(v) {
		return 0, failedToParse("Expected an integer: %s", elem)
	}
	if n < 0 {
		return 0, failedToParse("Expected a non-negative number in: %s", elem)
	}
	return n, nil
}

// bitsElemString prints "key: value" as MongoDB prints a BSON element: a
// whole double keeps its ".0".
func bitsElemString(key string, v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return fmt.Sprintf("%s: %.1f", key, x)
		}
	case nil:
		return key + ": null"
	case bson.D:
		if len(x) == 0 {
			return key + ": {}"
		}
	case bson.A:
		if len(x) == 0 {
			return key + ": []"
		}
	}
	return elemString(key, v)
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
