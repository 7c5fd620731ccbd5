package mongo

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// valueString formats a value as MongoDB's BSONElement::toString does in
// error messages: numbers bare, strings in double quotes, documents as
// { a: 1 }, arrays as [ 1, 2 ].
func valueString(v bson.RawValue) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v bson.RawValue) {
	switch v.Type {
	case bson.TypeInt32:
		b.WriteString(strconv.FormatInt(int64(v.Int32()), 10))
	case bson.TypeInt64:
		b.WriteString(strconv.FormatInt(v.Int64(), 10))
	case bson.TypeDouble:
		f := v.Double()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) && !strings.ContainsAny(s, "e") {
			s += ".0"
		}
		b.WriteString(s)
	case bson.TypeDecimal128:
		b.WriteString(v.Decimal128().String())
	case bson.TypeString:
		b.WriteString(strconv.Quote(v.StringValue()))
	case bson.TypeBoolean:
		b.WriteString(strconv.FormatBool(v.Boolean()))
	case bson.TypeNull:
		b.WriteString("null")
	case bson.TypeUndefined:
		b.WriteString("undefined")
	case bson.TypeObjectID:
		b.WriteString("ObjectId('" + v.ObjectID().Hex() + "')")
	case bson.TypeDateTime:
		b.WriteString("new Date(" + strconv.FormatInt(v.DateTime(), 10) + ")")
	case bson.TypeBinary:
		sub, data := v.Binary()
		if sub == bson.TypeBinaryUUID && len(data) == 16 {
			h := hex.EncodeToString(data)
			b.WriteString(`UUID("` + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + `")`)
		} else {
			b.WriteString("BinData(" + strconv.Itoa(int(sub)) + ", " + strings.ToUpper(hex.EncodeToString(data)) + ")")
		}
	case bson.TypeEmbeddedDocument:
		writeElems(b, v.Document(), "{", "}", true)
	case bson.TypeArray:
		writeElems(b, bson.Raw(v.Array()), "[", "]", false)
	default:
		b.WriteString(v.String())
	}
}

func writeElems(b *strings.Builder, doc bson.Raw, open, close string, keys bool) {
	elems, err := doc.Elements()
	if err != nil || len(elems) == 0 {
		b.WriteString(open + close)
		return
	}
	b.WriteString(open + " ")
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if keys {
			b.WriteString(e.Key() + ": ")
		}
		writeValue(b, e.Value())
	}
	b.WriteString(" " + close)
}
