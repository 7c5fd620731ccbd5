package aggregate

import (
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(nary(0, -1, evalConcat), "$concat")
	register(nary(3, 3, evalSubstrBytes), "$substr", "$substrBytes")
	register(nary(3, 3, evalSubstrCP), "$substrCP")
	register(unary(func(n string, x any) (any, error) { return caseConvert(n, x, strings.ToLower) }), "$toLower")
	register(unary(func(n string, x any) (any, error) { return caseConvert(n, x, strings.ToUpper) }), "$toUpper")
	register(unary(evalStrLen), "$strLenCP", "$strLenBytes")
	register(nary(2, 2, evalSplit), "$split")
	register(compileTrim, "$trim", "$ltrim", "$rtrim")
	register(nary(2, 2, evalStrcasecmp), "$strcasecmp")
	register(nary(2, 4, evalIndexOfStr), "$indexOfBytes", "$indexOfCP")
}

func evalConcat(_ string, xs []any) (any, error) {
	var b strings.Builder
	sawNull := false
	for _, x := range xs {
		switch s := x.(type) {
		case string:
			b.WriteString(s)
		default:
			if nullish(x) {
				sawNull = true
				continue
			}
			return nil, mongoerr.Newf(mongoerr.Location16702, "$concat only supports strings, not %s", TypeName(x))
		}
	}
	if sawNull {
		return nil, nil
	}
	return b.String(), nil
}

// stringOf coerces a value to a string the way $substr and $toLower do:
// null and missing are "", numbers and dates are rendered.
func stringOf(name string, x any) (string, error) {
	switch s := x.(type) {
	case string:
		return s, nil
	case bson.Symbol:
		return string(s), nil
	}
	if nullish(x) {
		return "", nil
	}
	if isNumber(x) {
		return numberString(x), nil
	}
	if isDate(x) {
		return formatISODate(asDateTime(x)), nil
	}
	if ts, ok := x.(bson.Timestamp); ok {
		return FormatValue(ts), nil
	}
	return "", mongoerr.Newf(mongoerr.Location16007, "can't convert from BSON type %s to String", TypeName(x))
}

// intArg checks that x is an integral number for a string operator.
func intArg(x any) (int64, bool) {
	if !isNumber(x) {
		return 0, false
	}
	if classify(x) == numDouble || classify(x) == numDecimal {
		return toInt64(x), true
	}
	return toInt64(x), true
}

func evalSubstrBytes(name string, xs []any) (any, error) {
	s, err := stringOf(name, xs[0])
	if err != nil {
		return nil, err
	}
	if !isNumber(xs[1]) {
		return nil, mongoerr.Newf(mongoerr.Location16034, "%s:  starting index must be a numeric type (is BSON type %s)", name, TypeName(xs[1]))
	}
	if !isNumber(xs[2]) {
		return nil, mongoerr.Newf(mongoerr.Location16035, "%s:  length must be a numeric type (is BSON type %s)", name, TypeName(xs[2]))
	}
	start, _ := intArg(xs[1])
	length, _ := intArg(xs[2])
	if start < 0 {
		start = int64(len(s))
	}
	if start >= int64(len(s)) {
		return "", nil
	}
	if start > 0 && !utf8.RuneStart(s[start]) {
		return nil, mongoerr.Newf(mongoerr.Location28656, "%s:  Invalid range, starting index is a UTF-8 continuation byte.", name)
	}
	end := int64(len(s))
	if length >= 0 && start+length < end {
		end = start + length
	}
	if end < int64(len(s)) && !utf8.RuneStart(s[end]) {
		return nil, mongoerr.Newf(mongoerr.Location28657, "%s:  Invalid range, ending index is in the middle of a UTF-8 character.", name)
	}
	return s[start:end], nil
}

func evalSubstrCP(name string, xs []any) (any, error) {
	s, err := stringOf(name, xs[0])
	if err != nil {
		return nil, err
	}
	if !isNumber(xs[1]) {
		return nil, mongoerr.Newf(mongoerr.Location34450, "$substrCP: starting index must be a numeric type (is BSON type %s)", TypeName(xs[1]))
	}
	if !isNumber(xs[2]) {
		return nil, mongoerr.Newf(mongoerr.Location34452, "$substrCP: length must be a numeric type (is BSON type %s)", TypeName(xs[2]))
	}
	if !isIntegral(xs[1]) {
		return nil, mongoerr.New(mongoerr.Location34451, "$substrCP: starting index cannot be represented as a 32-bit integral value")
	}
	if !isIntegral(xs[2]) {
		return nil, mongoerr.New(mongoerr.Location34453, "$substrCP: length cannot be represented as a 32-bit integral value")
	}
	start, length := toInt64(xs[1]), toInt64(xs[2])
	if start < 0 {
		return nil, mongoerr.New(mongoerr.Location34455, "$substrCP: the starting index must be nonnegative integer.")
	}
	if length < 0 {
		return nil, mongoerr.New(mongoerr.Location34454, "$substrCP: length must be a nonnegative integer.")
	}
	runes := []rune(s)
	if start >= int64(len(runes)) {
		return "", nil
	}
	end := start + length
	if end > int64(len(runes)) {
		end = int64(len(runes))
	}
	return string(runes[start:end]), nil
}

func caseConvert(name string, x any, fn func(string) string) (any, error) {
	s, err := stringOf(name, x)
	if err != nil {
		return nil, err
	}
	// MongoDB changes only ASCII letters.
	b := []byte(s)
	for i, c := range b {
		switch {
		case name == "$toLower" && c >= 'A' && c <= 'Z':
			b[i] = c + 32
		case name == "$toUpper" && c >= 'a' && c <= 'z':
			b[i] = c - 32
		}
	}
	_ = fn
	return string(b), nil
}

func evalStrLen(name string, x any) (any, error) {
	s, ok := x.(string)
	if !ok {
		if name == "$strLenCP" {
			return nil, mongoerr.Newf(mongoerr.Location34471, "$strLenCP requires a string argument, found: %s", TypeName(x))
		}
		return nil, mongoerr.Newf(mongoerr.Location34473, "$strLenBytes requires a string argument, found: %s", TypeName(x))
	}
	if name == "$strLenCP" {
		return int32(utf8.RuneCountInString(s)), nil
	}
	return int32(len(s)), nil
}

func evalSplit(_ string, xs []any) (any, error) {
	if nullish(xs[0]) || nullish(xs[1]) {
		return nil, nil
	}
	s, ok := xs[0].(string)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40085, "$split requires an expression that evaluates to a string as a first argument, found: %s", TypeName(xs[0]))
	}
	sep, ok := xs[1].(string)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40086, "$split requires an expression that evaluates to a string as a second argument, found: %s", TypeName(xs[1]))
	}
	if sep == "" {
		return nil, mongoerr.New(mongoerr.Location40087, "$split requires a non-empty separator")
	}
	parts := strings.Split(s, sep)
	out := make(bson.A, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

// defaultTrimChars are the whitespace code points $trim removes by default.
const defaultTrimChars = "\x00 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

func compileTrim(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location50696, "%s only supports an object as an argument, found %s", name, TypeName(arg))
	}
	var inputF, charsF evalFn
	for _, e := range d {
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "input":
			inputF = f
		case "chars":
			charsF = f
		default:
			return nil, mongoerr.Newf(mongoerr.Location50694, "%s found an unknown argument: %s", name, e.Key)
		}
	}
	if inputF == nil {
		return nil, mongoerr.Newf(mongoerr.Location50695, "%s requires an 'input' field", name)
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := inputF(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			return nil, nil
		}
		s, ok := in.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location50699, "%s requires its input to be a string, got %s (of type %s) instead.", name, fmtValue(in), TypeName(in))
		}
		chars := defaultTrimChars
		if charsF != nil {
			cv, err := charsF(v, doc)
			if err != nil {
				return nil, err
			}
			if nullish(cv) {
				return nil, nil
			}
			cs, ok := cv.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location50700, "%s requires 'chars' to be a string, got %s (of type %s) instead.", name, fmtValue(cv), TypeName(cv))
			}
			chars = cs
		}
		switch name {
		case "$ltrim":
			return strings.TrimLeft(s, chars), nil
		case "$rtrim":
			return strings.TrimRight(s, chars), nil
		}
		return strings.Trim(s, chars), nil
	}, nil
}

func evalStrcasecmp(_ string, xs []any) (any, error) {
	a, err := stringOf("$strcasecmp", xs[0])
	if err != nil {
		return nil, err
	}
	b, err := stringOf("$strcasecmp", xs[1])
	if err != nil {
		return nil, err
	}
	return int32(strings.Compare(strings.ToUpper(a), strings.ToUpper(b))), nil
}

func evalIndexOfStr(name string, xs []any) (any, error) {
	if nullish(xs[0]) {
		return nil, nil
	}
	s, ok := xs[0].(string)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40091, "%s requires a string as the first argument, found: %s", name, TypeName(xs[0]))
	}
	sub, ok := xs[1].(string)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40092, "%s requires a string as the second argument, found: %s", name, TypeName(xs[1]))
	}
	var units []string
	if name == "$indexOfCP" {
		for _, r := range s {
			units = append(units, string(r))
		}
	} else {
		for i := 0; i < len(s); i++ {
			units = append(units, s[i:i+1])
		}
	}
	start, end := int64(0), int64(len(units))
	if len(xs) > 2 {
		if !isIntegral(xs[2]) {
			return nil, mongoerr.Newf(mongoerr.Location40096, "%s requires an integral starting index, found a value of type: %s, with value: %s", name, TypeName(xs[2]), fmtValue(xs[2]))
		}
		start = toInt64(xs[2])
		if start < 0 {
			return nil, mongoerr.Newf(mongoerr.Location40097, "%s requires a nonnegative start index, found: %d", name, start)
		}
	}
	if len(xs) > 3 {
		if !isIntegral(xs[3]) {
			return nil, mongoerr.Newf(mongoerr.Location40096, "%s requires an integral ending index, found a value of type: %s, with value: %s", name, TypeName(xs[3]), fmtValue(xs[3]))
		}
		end = min(toInt64(xs[3]), end)
	}
	subUnits := len(sub)
	if name == "$indexOfCP" {
		subUnits = utf8.RuneCountInString(sub)
	}
	for i := start; i+int64(subUnits) <= end; i++ {
		if strings.Join(units[i:i+int64(subUnits)], "") == sub {
			return int32(i), nil
		}
	}
	return int32(-1), nil
}
