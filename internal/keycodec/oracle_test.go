package keycodec_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// This file is the test oracle: MongoDB's comparison of BSON values written
// from its documented rules (BSONElement::woCompare, compareElementValues,
// canonicalizeBSONType), on Go values, independently of the encoder. Numbers
// are compared exactly with math/big.

// canonicalRank is MongoDB's canonicalizeBSONType.
func canonicalRank(v any) int {
	switch v.(type) {
	case bson.MinKey:
		return -1
	case bson.Undefined:
		return 0
	case nil, bson.Null:
		return 5
	case int32, int64, int, float64, bson.Decimal128:
		return 10
	case string, bson.Symbol:
		return 15
	case bson.D:
		return 20
	case bson.A, []any:
		return 25
	case bson.Binary:
		return 30
	case bson.ObjectID:
		return 35
	case bool:
		return 40
	case bson.DateTime, time.Time:
		return 45
	case bson.Timestamp:
		return 47
	case bson.Regex:
		return 50
	case bson.DBPointer:
		return 55
	case bson.JavaScript:
		return 60
	case bson.CodeWithScope:
		return 65
	case bson.MaxKey:
		return 127
	}
	panic(fmt.Sprintf("oracle: unknown type %T", v))
}

// compareValues returns the sign of MongoDB's comparison of a and b.
func compareValues(a, b any) int {
	if c := cmp.Compare(canonicalRank(a), canonicalRank(b)); c != 0 {
		return c
	}
	switch x := a.(type) {
	case bson.MinKey, bson.MaxKey, bson.Undefined, nil, bson.Null:
		return 0
	case int32, int64, int, float64, bson.Decimal128:
		return compareNumbers(toNumber(x), toNumber(b))
	case string, bson.Symbol:
		return strings.Compare(stringOf(a), stringOf(b))
	case bson.D:
		return compareDocs(x, b.(bson.D))
	case bson.A, []any:
		return compareArrays(arrayOf(a), arrayOf(b))
	case bson.Binary:
		// Length, subtype, then bytes, all of the BSON value.
		xb, yb := binaryBSON(x), binaryBSON(b.(bson.Binary))
		if c := cmp.Compare(len(xb), len(yb)); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Subtype, b.(bson.Binary).Subtype); c != 0 {
			return c
		}
		return bytes.Compare(xb, yb)
	case bson.ObjectID:
		y := b.(bson.ObjectID)
		return bytes.Compare(x[:], y[:])
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case bson.DateTime, time.Time:
		return cmp.Compare(millisOf(a), millisOf(b))
	case bson.Timestamp:
		y := b.(bson.Timestamp)
		return cmp.Compare(uint64(x.T)<<32|uint64(x.I), uint64(y.T)<<32|uint64(y.I))
	case bson.Regex:
		y := b.(bson.Regex)
		if c := strings.Compare(x.Pattern, y.Pattern); c != 0 {
			return c
		}
		return strings.Compare(x.Options, y.Options)
	case bson.DBPointer:
		// compareElementValues: value sizes first (the namespace length
		// decides), then memcmp of namespace and ObjectId.
		y := b.(bson.DBPointer)
		if c := cmp.Compare(len(x.DB), len(y.DB)); c != 0 {
			return c
		}
		if c := strings.Compare(x.DB, y.DB); c != 0 {
			return c
		}
		return bytes.Compare(x.Pointer[:], y.Pointer[:])
	case bson.JavaScript:
		return strings.Compare(string(x), string(b.(bson.JavaScript)))
	case bson.CodeWithScope:
		y := b.(bson.CodeWithScope)
		if c := strings.Compare(string(x.Code), string(y.Code)); c != 0 {
			return c
		}
		return compareDocs(scopeOf(x), scopeOf(y))
	}
	panic(fmt.Sprintf("oracle: unknown type %T", a))
}

// compareDocs is BSONObj::woCompare with field names considered: per
// element the canonical type, then the field name, then the value; a
// document that runs out first is smaller.
func compareDocs(a, b bson.D) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(canonicalRank(a[i].Value), canonicalRank(b[i].Value)); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := compareValues(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareArrays compares element by element, ignoring field names.
func compareArrays(a, b []any) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// binaryBSON returns the bytes of b as BSON stores them after the subtype:
// the driver writes subtype 2 with an inner length first.
func binaryBSON(b bson.Binary) []byte {
	if b.Subtype != 2 {
		return b.Data
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b.Data))), b.Data...)
}

func stringOf(v any) string {
	if s, ok := v.(bson.Symbol); ok {
		return string(s)
	}
	return v.(string)
}

func arrayOf(v any) []any {
	if a, ok := v.(bson.A); ok {
		return a
	}
	return v.([]any)
}

func millisOf(v any) int64 {
	if t, ok := v.(time.Time); ok {
		return t.UnixMilli()
	}
	return int64(v.(bson.DateTime))
}

func scopeOf(c bson.CodeWithScope) bson.D {
	if c.Scope == nil {
		return nil
	}
	return c.Scope.(bson.D)
}

// number is an exact numeric value: kind orders NaN < -Inf < finite <
// +Inf, and r holds the finite value.
type number struct {
	kind int
	r    *big.Rat
}

const (
	kindNaN = iota
	kindNegInf
	kindFinite
	kindPosInf
)

var tenTo34 = new(big.Int).Exp(big.NewInt(10), big.NewInt(34), nil)

func toNumber(v any) number {
	switch x := v.(type) {
	case int32:
		return number{kindFinite, new(big.Rat).SetInt64(int64(x))}
	case int64:
		return number{kindFinite, new(big.Rat).SetInt64(x)}
	case int:
		return number{kindFinite, new(big.Rat).SetInt64(int64(x))}
	case float64:
		switch {
		case math.IsNaN(x):
			return number{kind: kindNaN}
		case math.IsInf(x, -1):
			return number{kind: kindNegInf}
		case math.IsInf(x, 1):
			return number{kind: kindPosInf}
		}
		return number{kindFinite, new(big.Rat).SetFloat64(x)}
	case bson.Decimal128:
		if x.IsNaN() {
			return number{kind: kindNaN}
		}
		switch x.IsInf() {
		case -1:
			return number{kind: kindNegInf}
		case 1:
			return number{kind: kindPosInf}
		}
		coef, exp, err := x.BigInt()
		if err != nil {
			panic(err)
		}
		// IEEE 754: a coefficient above 10^34-1 is non-canonical and
		// means zero.
		if new(big.Int).Abs(coef).Cmp(tenTo34) >= 0 {
			return number{kindFinite, new(big.Rat)}
		}
		r := new(big.Rat).SetInt(coef)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
		if exp >= 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
		return number{kindFinite, r}
	}
	panic(fmt.Sprintf("oracle: %T is not a number", v))
}

func compareNumbers(a, b number) int {
	if c := cmp.Compare(a.kind, b.kind); c != 0 || a.kind != kindFinite {
		return c
	}
	return a.r.Cmp(b.r)
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func sign(i int) int {
	return cmp.Compare(i, 0)
}
