package mongo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBitsOperandErrors checks the codes and words of MongoDB's
// parseBitTest for bad $bits* operands: a mask number is parsed as a
// non-negative 64-bit integer (FailedToParse), the elements of a position
// array likewise but reported as BadValue, and any other operand is
// BadValue naming the field.
func TestBitsOperandErrors(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	for _, tc := range []struct {
		name     string
		operand  any
		code     int32
		codeName string
		msg      string
	}{
		{"a string", "123", 2, "BadValue", `a.b takes an Array, a number, or a BinData but received: $bitsAllSet: "123"`},
		{"a bool", true, 2, "BadValue", `a.b takes an Array, a number, or a BinData but received: $bitsAllSet: true`},
		{"an object", bson.D{}, 2, "BadValue", `a.b takes an Array, a number, or a BinData but received: $bitsAllSet: {}`},
		{"a fraction", 1.5, 9, "FailedToParse", "Expected an integer: $bitsAllSet: 1.5"},
		{"a negative int", int32(-1), 9, "FailedToParse", "Expected a non-negative number in: $bitsAllSet: -1"},
		{"a negative double", -2.0, 9, "FailedToParse", "Expected a non-negative number in: $bitsAllSet: -2.0"},
		{"past 64 bits", 1e20, 9, "FailedToParse", "Cannot represent as a 64-bit integer: $bitsAllSet: 1e+20"},
		{"a string position", bson.A{int32(1), "x"}, 2, "BadValue", `Failed to parse bit position. Expected a number in: 1: "x"`},
		{"a fractional position", bson.A{1.5}, 2, "BadValue", "Failed to parse bit position. Expected an integer: 0: 1.5"},
		{"a negative position", bson.A{int32(-1)}, 2, "BadValue", "Failed to parse bit position. Expected a non-negative number in: 0: -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmdError(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a.b", Value: bson.D{{Key: "$bitsAllSet", Value: tc.operand}}}}}},
				tc.code, tc.codeName, tc.msg)
		})
	}
}
