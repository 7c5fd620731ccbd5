package query

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// CanonicalKey returns a string that is the same for two values exactly
// when Equal reports them equal: numbers by value across types (1, 1.0,
// NumberLong(1) and NumberDecimal("1.00") share a key), strings and symbols
// by content, documents and arrays element by element, null and undefined
// apart. It lets $group, $addToSet and distinct bucket values in a map.
func CanonicalKey(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	b.WriteString(strconv.Itoa(CanonicalRank(v)))
	b.WriteByte(':')
	switch CanonicalRank(v) {
	case RankNumber:
		writeNumberKey(b, v)
	case RankString:
		b.WriteString(strconv.Quote(stringValue(v)))
	case RankObject:
		d, _ := AsDocument(v)
		b.WriteByte('{')
		for _, e := range d {
			b.WriteString(strconv.Quote(e.Key))
			b.WriteByte('=')
			writeKey(b, e.Value)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case RankArray:
		a, _ := AsArray(v)
		b.WriteByte('[')
		for _, e := range a {
			writeKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case RankBinary:
		x := binaryValue(v)
		b.WriteString(strconv.Itoa(int(x.Subtype)))
		b.WriteByte('/')
		b.WriteString(hex.EncodeToString(x.Data))
	case RankObjectID:
		id := v.(bson.ObjectID)
		b.WriteString(hex.EncodeToString(id[:]))
	case RankBool:
		b.WriteString(strconv.FormatBool(v.(bool)))
	case RankDate:
		b.WriteString(strconv.FormatInt(int64(dateValue(v)), 10))
	case RankTimestamp:
		ts := v.(bson.Timestamp)
		b.WriteString(strconv.FormatUint(uint64(ts.T), 10) + "." + strconv.FormatUint(uint64(ts.I), 10))
	case RankRegex:
		r := v.(bson.Regex)
		b.WriteString(strconv.Quote(r.Pattern) + "/" + strconv.Quote(r.Options))
	case RankDBPointer:
		p := v.(bson.DBPointer)
		b.WriteString(strconv.Quote(p.DB) + "/" + hex.EncodeToString(p.Pointer[:]))
	case RankJavaScript:
		b.WriteString(strconv.Quote(string(v.(bson.JavaScript))))
	case RankCodeWithScope:
		c := v.(bson.CodeWithScope)
		b.WriteString(strconv.Quote(string(c.Code)))
		writeKey(b, c.Scope)
	}
}

// writeNumberKey writes one spelling per numeric value: integers in int64
// range as integers, other values exactly representable as a double as the
// double, the rest as an exact fraction.
func writeNumberKey(b *strings.Builder, v any) {
	n, _ := toNumber(v)
	switch n.kind {
	case 'i':
		b.WriteString(strconv.FormatInt(n.i, 10))
		return
	case 'u':
		b.WriteString(strconv.FormatUint(n.u, 10))
		return
	}
	x := n.extended()
	switch x.class {
	case -2:
		b.WriteString("NaN")
		return
	case -1:
		b.WriteString("-Inf")
		return
	case 1:
		b.WriteString("+Inf")
		return
	}
	r := x.r
	if r.IsInt() {
		if r.Num().IsInt64() {
			b.WriteString(r.Num().String())
			return
		}
		if r.Num().IsUint64() {
			b.WriteString(r.Num().String())
			return
		}
	}
	if f, exact := r.Float64(); exact && !math.IsInf(f, 0) {
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		return
	}
	b.WriteString(new(big.Rat).Set(r).String())
}
