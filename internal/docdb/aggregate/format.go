package aggregate

import (
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FormatValue renders v the way MongoDB's server prints BSON in error
// messages: { a: 1, b: "x", c: [ 1, 2 ] }.
func FormatValue(v any) string {
	var b strings.Builder
	formatValue(&b, v)
	return b.String()
}

func fmtValue(v any) string { return FormatValue(v) }

func formatValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case missingValue:
		b.WriteString("MISSING")
	case nil, bson.Null:
		b.WriteString("null")
	case bson.Undefined:
		b.WriteString("undefined")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(formatDouble(x))
	case bson.Decimal128:
		b.WriteString("NumberDecimal(\"" + x.String() + "\")")
	case string:
		b.WriteString(strconv.Quote(x))
	case bson.D:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Key)
			b.WriteString(": ")
			formatValue(b, e.Value)
		}
		b.WriteString(" }")
	case bson.A:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, e)
		}
		b.WriteString(" ]")
	case bson.ObjectID:
		b.WriteString("ObjectId('" + x.Hex() + "')")
	case bson.DateTime:
		b.WriteString("new Date(" + strconv.FormatInt(int64(x), 10) + ")")
	case bson.Timestamp:
		b.WriteString("Timestamp(" + strconv.FormatUint(uint64(x.T), 10) + ", " + strconv.FormatUint(uint64(x.I), 10) + ")")
	case bson.Regex:
		b.WriteString("/" + x.Pattern + "/" + x.Options)
	case bson.Binary:
		b.WriteString("BinData(" + strconv.Itoa(int(x.Subtype)) + ", " + strings.ToUpper(hexString(x.Data)) + ")")
	case bson.MinKey:
		b.WriteString("MinKey")
	case bson.MaxKey:
		b.WriteString("MaxKey")
	case bson.Symbol:
		b.WriteString(strconv.Quote(string(x)))
	case bson.JavaScript:
		b.WriteString(string(x))
	default:
		if d, ok := asDoc(v); ok {
			formatValue(b, d)
			return
		}
		if a, ok := asArray(v); ok {
			formatValue(b, a)
			return
		}
		b.WriteString("?")
	}
}

func hexString(p []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(p))
	for _, c := range p {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// formatDouble renders a double as MongoDB does: integral values keep a
// ".0", others print in shortest form.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan.0"
	case math.IsInf(f, 1):
		return "inf.0"
	case math.IsInf(f, -1):
		return "-inf.0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
