package aggregate

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(unary(func(_ string, x any) (any, error) { return TypeName(x), nil }), "$type")
	register(unary(func(_ string, x any) (any, error) { return isNumber(x), nil }), "$isNumber")
	register(compileConvert, "$convert")
	for op, to := range map[string]string{
		"$toString": "string", "$toInt": "int", "$toLong": "long", "$toDouble": "double",
		"$toDecimal": "decimal", "$toDate": "date", "$toBool": "bool", "$toObjectId": "objectId",
	} {
		register(func(c *compiler, name string, arg any) (evalFn, error) {
			fs, err := c.compileArgs(name, arg, 1, 1)
			if err != nil {
				return nil, err
			}
			f := fs[0]
			return func(v *Vars, doc bson.D) (any, error) {
				x, err := f(v, doc)
				if err != nil {
					return nil, err
				}
				if nullish(x) {
					return nil, nil
				}
				return convertValue(x, to)
			}, nil
		}, op)
	}
}

// typeAliases maps numeric BSON type codes accepted by $convert's "to".
var typeAliases = map[int64]string{
	1: "double", 2: "string", 7: "objectId", 8: "bool", 9: "date", 16: "int", 18: "long", 19: "decimal",
	3: "object", 4: "array", 5: "binData", 10: "null", 11: "regex", 13: "javascript", 17: "timestamp",
	-1: "minKey", 127: "maxKey", 6: "undefined", 12: "dbPointer", 14: "symbol", 15: "javascriptWithScope",
}

func compileConvert(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "$convert expects an object of named arguments but found: %s", TypeName(arg))
	}
	var inputF, toF, onErrF, onNullF evalFn
	for _, e := range d {
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "input":
			inputF = f
		case "to":
			toF = f
		case "onError":
			onErrF = f
		case "onNull":
			onNullF = f
		case "format", "base", "byteOrder":
			return nil, mongoerr.Newf(mongoerr.NotImplemented, "$convert: %s is not supported", e.Key)
		default:
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "$convert found an unknown argument: %s", e.Key)
		}
	}
	if inputF == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Missing 'input' parameter to $convert")
	}
	if toF == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Missing 'to' parameter to $convert")
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := inputF(v, doc)
		if err != nil {
			return nil, err
		}
		tv, err := toF(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			if onNullF != nil {
				return onNullF(v, doc)
			}
			return nil, nil
		}
		if nullish(tv) {
			return nil, nil
		}
		if td, ok := asDoc(tv); ok {
			if t, ok := lookupField(td, "type"); ok {
				tv = t
			}
		}
		var to string
		switch t := tv.(type) {
		case string:
			if _, ok := typeNumbers[t]; !ok {
				return nil, mongoerr.Newf(mongoerr.BadValue, "Unknown type name: %s", t)
			}
			to = t
		default:
			if !isIntegral(tv) {
				return nil, mongoerr.Newf(mongoerr.FailedToParse, "$convert's 'to' argument must be a string or number, but is %s", TypeName(tv))
			}
			name, ok := typeAliases[toInt64(tv)]
			if !ok {
				return nil, mongoerr.Newf(mongoerr.BadValue, "In $convert, numeric value for 'to' does not correspond to a BSON type: %s", fmtValue(tv))
			}
			to = name
		}
		out, err := convertValue(in, to)
		if err != nil {
			if onErrF != nil {
				if e, ok := mongoerr.As(err); ok && e.Code == mongoerr.ConversionFailure {
					return onErrF(v, doc)
				}
			}
			return nil, err
		}
		return out, nil
	}, nil
}

func unsupported(x any, to string) error {
	return mongoerr.Newf(mongoerr.ConversionFailure, "Unsupported conversion from %s to %s in $convert with no onError value", TypeName(x), to)
}

func overflow(x any) error {
	return mongoerr.Newf(mongoerr.ConversionFailure, "Conversion would overflow target type in $convert with no onError value: %s", fmtValue(x))
}

// convertValue converts a non-null value to the named type as $convert.
func convertValue(x any, to string) (any, error) {
	if TypeName(x) == to {
		return x, nil
	}
	switch to {
	case "double":
		return convertToDouble(x)
	case "int", "long":
		return convertToInteger(x, to)
	case "decimal":
		return convertToDecimal(x)
	case "string":
		return convertToString(x)
	case "bool":
		return convertToBool(x)
	case "date":
		return convertToDate(x)
	case "objectId":
		return convertToObjectID(x)
	}
	return nil, unsupported(x, to)
}

// convertToDouble converts x for $convert to double.
func convertToDouble(x any) (any, error) {
	switch {
	case isNumber(x):
		if classify(x) == numDecimal {
			f := decToFloat(toDecimal(x))
			if math.IsInf(f, 0) && toDecimal(x).IsInf() == 0 {
				return nil, overflow(x)
			}
			return f, nil
		}
		return toFloat(x), nil
	case isDate(x):
		return float64(asDateTime(x)), nil
	}
	switch t := x.(type) {
	case bool:
		return b2f(t), nil
	case string:
		f, err := parseNumber(t)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return nil, unsupported(x, "double")
}

// convertToInteger converts x for $convert to int or long (to).
func convertToInteger(x any, to string) (any, error) {
	var i int64
	switch {
	case classify(x) == numInt || classify(x) == numLong:
		i = toInt64(x)
	case classify(x) == numDouble:
		f := toFloat(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Attempt to convert %s value to integer type in $convert with no onError value", formatDouble(f))
		}
		t := math.Trunc(f)
		if t >= 9.2233720368547758e18 || t < -9.2233720368547758e18 {
			return nil, overflow(x)
		}
		i = int64(t)
	case classify(x) == numDecimal:
		d := decRound(toDecimal(x), 0, 't')
		b, ok := decToBigInt(d)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Attempt to convert %s value to integer type in $convert with no onError value", toDecimal(x).String())
		}
		if !b.IsInt64() {
			return nil, overflow(x)
		}
		i = b.Int64()
	case isDate(x) && to == "long":
		i = int64(asDateTime(x))
	default:
		switch t := x.(type) {
		case bool:
			if t {
				i = 1
			}
		case string:
			n, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					return nil, overflow(x)
				}
				return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Failed to parse number '%s' in $convert with no onError value: Did not consume whole string.", t)
			}
			i = n
		default:
			return nil, unsupported(x, to)
		}
	}
	if to == "int" {
		if i > math.MaxInt32 || i < math.MinInt32 {
			return nil, overflow(x)
		}
		return int32(i), nil
	}
	return i, nil
}

// convertToDecimal converts x for $convert to decimal.
func convertToDecimal(x any) (any, error) {
	switch {
	case isNumber(x):
		if classify(x) == numDouble {
			return decFromFloat(toFloat(x)), nil
		}
		return toDecimal(x), nil
	case isDate(x):
		return decFromInt(int64(asDateTime(x))), nil
	}
	switch t := x.(type) {
	case bool:
		if t {
			return decFromInt(1), nil
		}
		return decFromInt(0), nil
	case string:
		d, err := bson.ParseDecimal128(strings.TrimSpace(t))
		if err != nil || strings.TrimSpace(t) != t {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Failed to parse number '%s' in $convert with no onError value: Failed to parse string to decimal", t)
		}
		return d, nil
	}
	return nil, unsupported(x, "decimal")
}

// convertToString converts x for $convert to string.
func convertToString(x any) (any, error) {
	switch {
	case isNumber(x):
		return numberString(x), nil
	case isDate(x):
		return formatISODate(asDateTime(x)), nil
	}
	switch t := x.(type) {
	case bool:
		return strconv.FormatBool(t), nil
	case bson.ObjectID:
		return t.Hex(), nil
	case bson.Symbol:
		return string(t), nil
	}
	return nil, unsupported(x, "string")
}

// convertToBool converts x for $convert to bool.
func convertToBool(x any) (any, error) {
	switch {
	case isNumber(x):
		return truthy(x), nil
	}
	switch x.(type) {
	case string, bson.ObjectID, bson.DateTime, bson.D, bson.A, bson.Binary, bson.Timestamp, bson.Regex,
		bson.JavaScript, bson.CodeWithScope, bson.Symbol, bson.DBPointer, bson.MinKey, bson.MaxKey:
		return true, nil
	}
	return nil, unsupported(x, "bool")
}

// convertToDate converts x for $convert to date.
func convertToDate(x any) (any, error) {
	switch classify(x) {
	case numLong:
		return bson.DateTime(toInt64(x)), nil
	case numDouble:
		f := toFloat(x)
		if math.IsNaN(f) || math.IsInf(f, 0) || f >= 9.2233720368547758e18 || f < -9.2233720368547758e18 {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Conversion would overflow target type in $convert with no onError value: %s", fmtValue(x))
		}
		return bson.DateTime(int64(f)), nil
	case numDecimal:
		b, _ := decToBigInt(decRound(toDecimal(x), 0, 't'))
		if b == nil || !b.IsInt64() {
			return nil, overflow(x)
		}
		return bson.DateTime(b.Int64()), nil
	}
	switch t := x.(type) {
	case string:
		d, err := parseDateString(t)
		if err != nil {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Error parsing date string '%s'; 0: passing a time zone identifier as part of the string is not allowed", t)
		}
		return d, nil
	case bson.ObjectID:
		return bson.NewDateTimeFromTime(t.Timestamp()), nil
	case bson.Timestamp:
		return bson.DateTime(int64(t.T) * 1000), nil
	}
	return nil, unsupported(x, "date")
}

// convertToObjectID converts x for $convert to objectId.
func convertToObjectID(x any) (any, error) {
	if s, ok := x.(string); ok {
		id, err := bson.ObjectIDFromHex(s)
		if err != nil {
			return nil, mongoerr.Newf(mongoerr.ConversionFailure, "Failed to parse objectId '%s' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found %d", s, len(s))
		}
		return id, nil
	}
	return nil, unsupported(x, "objectId")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// parseNumber parses a string for $toDouble.
func parseNumber(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, mongoerr.Newf(mongoerr.ConversionFailure, "Failed to parse number '%s' in $convert with no onError value: Out of range", s)
		}
		return 0, mongoerr.Newf(mongoerr.ConversionFailure, "Failed to parse number '%s' in $convert with no onError value: Did not consume whole string.", s)
	}
	return f, nil
}

// numberString renders a number as $toString does.
func numberString(x any) string {
	switch classify(x) {
	case numInt, numLong:
		return strconv.FormatInt(toInt64(x), 10)
	case numDouble:
		f := toFloat(x)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return new(big.Float).SetFloat64(f).Text('f', 0)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case numDecimal:
		return toDecimal(x).String()
	}
	return ""
}
