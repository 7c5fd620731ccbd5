package aggregate

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(unary(evalSize), "$size")
	register(nary(2, 2, evalArrayElemAt), "$arrayElemAt")
	register(unary(evalFirstLast), "$first", "$last")
	register(collatedNary(2, 2, evalIn), "$in")
	register(unary(func(_ string, x any) (any, error) { _, ok := asArray(x); return ok, nil }), "$isArray")
	register(nary(0, -1, evalConcatArrays), "$concatArrays")
	register(compileFilter, "$filter")
	register(compileMap, "$map")
	register(compileReduce, "$reduce")
	register(nary(2, 3, evalSlice), "$slice")
	register(collatedNary(2, 4, evalIndexOfArray), "$indexOfArray")
	register(nary(2, 3, evalRange), "$range")
	register(unary(evalReverseArray), "$reverseArray")
	register(collatedNary(0, -1, evalSetOp), "$setUnion", "$setIntersection")
	register(collatedNary(2, 2, evalSetOp), "$setDifference", "$setIsSubset")
	register(collatedNary(2, -1, evalSetOp), "$setEquals")
	register(unary(evalElementsTrue), "$anyElementTrue", "$allElementsTrue")
}

func evalSize(_ string, x any) (any, error) {
	a, ok := asArray(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location17124, "The argument to $size must be an array. Type of the argument was: %s", TypeName(x))
	}
	return int32(len(a)), nil
}

// int32Index converts an index argument that must fit a 32-bit integer.
func int32Index(x any) (int64, bool) {
	if !isIntegral(x) {
		return 0, false
	}
	var i int64
	switch classify(x) {
	case numDouble:
		f := toFloat(x)
		if f > math.MaxInt32 || f < math.MinInt32 {
			return 0, false
		}
		i = int64(f)
	case numDecimal:
		b, _ := decToBigInt(toDecimal(x))
		if !b.IsInt64() {
			return 0, false
		}
		i = b.Int64()
	default:
		i = toInt64(x)
	}
	if i > math.MaxInt32 || i < math.MinInt32 {
		return 0, false
	}
	return i, true
}

func evalArrayElemAt(_ string, xs []any) (any, error) {
	if nullish(xs[0]) || nullish(xs[1]) {
		return nil, nil
	}
	a, ok := asArray(xs[0])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28689, "$arrayElemAt's first argument must be an array, but is %s", TypeName(xs[0]))
	}
	if !isNumber(xs[1]) {
		return nil, mongoerr.Newf(mongoerr.Location28690, "$arrayElemAt's second argument must be a numeric value, but is %s", TypeName(xs[1]))
	}
	i, ok := int32Index(xs[1])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: %s", fmtValue(xs[1]))
	}
	return elemAt(a, i), nil
}

// elemAt returns a[i], counting from the end when i is negative, or Missing.
func elemAt(a bson.A, i int64) any {
	if i < 0 {
		i += int64(len(a))
	}
	if i < 0 || i >= int64(len(a)) {
		return Missing
	}
	return a[i]
}

func evalFirstLast(name string, x any) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	a, ok := asArray(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28689, "%s's argument must be an array, but is %s", name, TypeName(x))
	}
	if name == "$first" {
		return elemAt(a, 0), nil
	}
	return elemAt(a, -1), nil
}

func evalIn(_ string, xs []any) (any, error) {
	a, ok := asArray(xs[1])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40081, "$in requires an array as a second argument, found: %s", TypeName(xs[1]))
	}
	for _, e := range a {
		if equal(xs[0], e) {
			return true, nil
		}
	}
	return false, nil
}

func evalConcatArrays(_ string, xs []any) (any, error) {
	out := bson.A{}
	sawNull := false
	for _, x := range xs {
		if nullish(x) {
			sawNull = true
			continue
		}
		a, ok := asArray(x)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location28664, "$concatArrays only supports arrays, not %s", TypeName(x))
		}
		out = append(out, a...)
	}
	if sawNull {
		return nil, nil
	}
	return out, nil
}

// iterSpec holds the parsed shape shared by $filter and $map.
type iterSpec struct {
	input evalFn
	as    string
	body  evalFn
	limit evalFn
}

func compileFilter(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "as", "cond", "limit"}, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := args["input"]; !ok {
		return nil, mongoerr.New(mongoerr.Location28648, "Missing 'input' parameter to $filter")
	}
	if _, ok := args["cond"]; !ok {
		return nil, mongoerr.New(mongoerr.Location28650, "Missing 'cond' parameter to $filter")
	}
	s, err := c.iterSpec(args, "cond", "this")
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := s.input(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			return nil, nil
		}
		a, ok := asArray(in)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location28651, "input to $filter must be an array not %s", TypeName(in))
		}
		limit := int64(-1)
		if s.limit != nil {
			lv, err := s.limit(v, doc)
			if err != nil {
				return nil, err
			}
			if !nullish(lv) {
				l, ok := int32Index(lv)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.Location327391, "$filter: limit must be represented as a 32-bit integral value: %s", fmtValue(lv))
				}
				if l < 1 {
					return nil, mongoerr.Newf(mongoerr.Location327392, "$filter: limit must be greater than 0: %d", l)
				}
				limit = l
			}
		}
		out := bson.A{}
		for _, e := range a {
			if limit >= 0 && int64(len(out)) >= limit {
				break
			}
			r, err := s.body(v.Bind(s.as, e), doc)
			if err != nil {
				return nil, err
			}
			if truthy(r) {
				out = append(out, e)
			}
		}
		return out, nil
	}, nil
}

// iterSpec compiles input, as and the body (in a scope with as bound).
func (c *compiler) iterSpec(args map[string]any, bodyKey, defaultAs string) (*iterSpec, error) {
	s := &iterSpec{as: defaultAs}
	var err error
	if s.input, err = c.compile(args["input"]); err != nil {
		return nil, err
	}
	if asV, ok := args["as"]; ok {
		as, ok := asV.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "'as' must be a string, found %s", TypeName(asV))
		}
		if err := validateVarName(as); err != nil {
			return nil, err
		}
		s.as = as
	}
	if l, ok := args["limit"]; ok {
		if s.limit, err = c.compile(l); err != nil {
			return nil, err
		}
	}
	c.push(s.as)
	s.body, err = c.compile(args[bodyKey])
	c.pop(s.as)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func compileMap(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "as", "in"}, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := args["input"]; !ok {
		return nil, mongoerr.New(mongoerr.Location16880, "Missing 'input' parameter to $map")
	}
	if _, ok := args["in"]; !ok {
		return nil, mongoerr.New(mongoerr.Location16882, "Missing 'in' parameter to $map")
	}
	s, err := c.iterSpec(args, "in", "this")
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := s.input(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			return nil, nil
		}
		a, ok := asArray(in)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location16883, "input to $map must be an array not %s", TypeName(in))
		}
		out := make(bson.A, len(a))
		for i, e := range a {
			r, err := s.body(v.Bind(s.as, e), doc)
			if err != nil {
				return nil, err
			}
			out[i] = arrayValue(r)
		}
		return out, nil
	}, nil
}

func compileReduce(c *compiler, name string, arg any) (evalFn, error) {
	args, err := namedArgs(name, arg, []string{"input", "initialValue", "in"}, nil)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"input", "initialValue", "in"} {
		if _, ok := args[k]; !ok {
			return nil, mongoerr.Newf(mongoerr.Location40079, "$reduce requires '%s' to be specified", k)
		}
	}
	input, err := c.compile(args["input"])
	if err != nil {
		return nil, err
	}
	initF, err := c.compile(args["initialValue"])
	if err != nil {
		return nil, err
	}
	c.push("this", "value")
	body, err := c.compile(args["in"])
	c.pop("this", "value")
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := input(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			return nil, nil
		}
		a, ok := asArray(in)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40080, "$reduce requires that 'input' be an array, found: %s", fmtValue(in))
		}
		acc, err := initF(v, doc)
		if err != nil {
			return nil, err
		}
		for _, e := range a {
			acc, err = body(v.Bind("value", acc).Bind("this", e), doc)
			if err != nil {
				return nil, err
			}
		}
		return acc, nil
	}, nil
}

func evalSlice(_ string, xs []any) (any, error) {
	for _, x := range xs {
		if nullish(x) {
			return nil, nil
		}
	}
	a, ok := asArray(xs[0])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28724, "First argument to $slice must be an array, but is of type: %s", TypeName(xs[0]))
	}
	if !isNumber(xs[1]) {
		return nil, mongoerr.Newf(mongoerr.Location28725, "Second argument to $slice must be a numeric value, but is of type: %s", TypeName(xs[1]))
	}
	p, ok := int32Index(xs[1])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28726, "Second argument to $slice can't be represented as a 32-bit integer: %s", fmtValue(xs[1]))
	}
	n := int64(len(a))
	if len(xs) == 2 {
		if p >= 0 {
			return append(bson.A{}, a[:min(p, n)]...), nil
		}
		return append(bson.A{}, a[max(n+p, 0):]...), nil
	}
	if !isNumber(xs[2]) {
		return nil, mongoerr.Newf(mongoerr.Location28727, "Third argument to $slice must be numeric, but is of type: %s", TypeName(xs[2]))
	}
	cnt, ok := int32Index(xs[2])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location28728, "Third argument to $slice can't be represented as a 32-bit integer: %s", fmtValue(xs[2]))
	}
	if cnt <= 0 {
		return nil, mongoerr.Newf(mongoerr.Location28729, "Third argument to $slice must be positive: %s", fmtValue(xs[2]))
	}
	start := p
	if start < 0 {
		start = max(n+start, 0)
	}
	if start > n {
		start = n
	}
	end := min(start+cnt, n)
	return append(bson.A{}, a[start:end]...), nil
}

func evalIndexOfArray(_ string, xs []any) (any, error) {
	if nullish(xs[0]) {
		return nil, nil
	}
	a, ok := asArray(xs[0])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40090, "$indexOfArray requires an array as a first argument, found: %s", TypeName(xs[0]))
	}
	start, end := int64(0), int64(len(a))
	if len(xs) > 2 {
		s, ok := int32Index(xs[2])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40096, "$indexOfArray requires an integral starting index, found a value of type: %s, with value: %s", TypeName(xs[2]), fmtValue(xs[2]))
		}
		if s < 0 {
			return nil, mongoerr.Newf(mongoerr.Location40097, "$indexOfArray requires a nonnegative starting index, found: %d", s)
		}
		start = s
	}
	if len(xs) > 3 {
		e, ok := int32Index(xs[3])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40096, "$indexOfArray requires an integral ending index, found a value of type: %s, with value: %s", TypeName(xs[3]), fmtValue(xs[3]))
		}
		if e < 0 {
			return nil, mongoerr.Newf(mongoerr.Location40097, "$indexOfArray requires a nonnegative ending index, found: %d", e)
		}
		end = min(e, end)
	}
	for i := start; i < end; i++ {
		if equal(a[i], xs[1]) {
			return int32(i), nil
		}
	}
	return int32(-1), nil
}

// maxRangeElements bounds $range so a bad argument cannot exhaust memory.
const maxRangeElements = 1 << 22

func evalRange(_ string, xs []any) (any, error) {
	if !isNumber(xs[0]) {
		return nil, mongoerr.Newf(mongoerr.Location34443, "$range requires a numeric starting value, found value of type: %s", TypeName(xs[0]))
	}
	start, ok := int32Index(xs[0])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location34444, "$range requires a starting value that can be represented as a 32-bit integer, found value: %s", fmtValue(xs[0]))
	}
	if !isNumber(xs[1]) {
		return nil, mongoerr.Newf(mongoerr.Location34445, "$range requires a numeric ending value, found value of type: %s", TypeName(xs[1]))
	}
	end, ok := int32Index(xs[1])
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location34446, "$range requires an ending value that can be represented as a 32-bit integer, found value: %s", fmtValue(xs[1]))
	}
	step := int64(1)
	if len(xs) == 3 {
		if !isNumber(xs[2]) {
			return nil, mongoerr.Newf(mongoerr.Location34447, "$range requires a numeric step value, found value of type: %s", TypeName(xs[2]))
		}
		s, ok := int32Index(xs[2])
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location34448, "$range requires a step value that can be represented as a 32-bit integer, found value: %s", fmtValue(xs[2]))
		}
		if s == 0 {
			return nil, mongoerr.New(mongoerr.Location34449, "$range requires a non-zero step value")
		}
		step = s
	}
	out := bson.A{}
	for i := start; (step > 0 && i < end) || (step < 0 && i > end); i += step {
		if len(out) >= maxRangeElements {
			return nil, mongoerr.New(mongoerr.Location5891701, "$range would use too much memory")
		}
		out = append(out, int32(i))
	}
	return out, nil
}

func evalReverseArray(_ string, x any) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	a, ok := asArray(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location34435, "The argument to $reverseArray must be an array, but was of type: %s", TypeName(x))
	}
	out := make(bson.A, len(a))
	for i, e := range a {
		out[len(a)-1-i] = e
	}
	return out, nil
}

// dedupe returns the distinct elements of a in first-seen order.
func dedupe(a bson.A) bson.A {
	out := bson.A{}
	for _, e := range a {
		if !containsValue(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func containsValue(a bson.A, x any) bool {
	for _, e := range a {
		if equal(e, x) {
			return true
		}
	}
	return false
}

func evalSetOp(name string, xs []any) (any, error) {
	arrays := make([]bson.A, len(xs))
	for i, x := range xs {
		if nullish(x) {
			if name == "$setEquals" || name == "$setIsSubset" {
				return nil, mongoerr.Newf(mongoerr.Location17044, "All operands of %s must be arrays. One argument is of type: %s", name, TypeName(x))
			}
			return nil, nil
		}
		a, ok := asArray(x)
		if !ok {
			switch name {
			case "$setDifference":
				return nil, mongoerr.Newf(mongoerr.Location17048, "both operands of $setDifference must be arrays. %s argument is of type: %s", map[bool]string{true: "First", false: "Second"}[i == 0], TypeName(x))
			case "$setIsSubset":
				return nil, mongoerr.Newf(mongoerr.Location17046, "both operands of $setIsSubset must be arrays. %s argument is of type: %s", map[bool]string{true: "First", false: "Second"}[i == 0], TypeName(x))
			}
			return nil, mongoerr.Newf(mongoerr.Location17044, "All operands of %s must be arrays. One argument is of type: %s", name, TypeName(x))
		}
		arrays[i] = a
	}
	switch name {
	case "$setUnion":
		all := bson.A{}
		for _, a := range arrays {
			all = append(all, a...)
		}
		return dedupe(all), nil
	case "$setIntersection":
		if len(arrays) == 0 {
			return bson.A{}, nil
		}
		out := bson.A{}
		for _, e := range dedupe(arrays[0]) {
			in := true
			for _, a := range arrays[1:] {
				if !containsValue(a, e) {
					in = false
					break
				}
			}
			if in {
				out = append(out, e)
			}
		}
		return out, nil
	case "$setDifference":
		out := bson.A{}
		for _, e := range dedupe(arrays[0]) {
			if !containsValue(arrays[1], e) {
				out = append(out, e)
			}
		}
		return out, nil
	case "$setIsSubset":
		for _, e := range arrays[0] {
			if !containsValue(arrays[1], e) {
				return false, nil
			}
		}
		return true, nil
	default: // $setEquals
		for _, a := range arrays[1:] {
			for _, e := range a {
				if !containsValue(arrays[0], e) {
					return false, nil
				}
			}
			for _, e := range arrays[0] {
				if !containsValue(a, e) {
					return false, nil
				}
			}
		}
		return true, nil
	}
}

func evalElementsTrue(name string, x any) (any, error) {
	a, ok := asArray(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location17041, "%s's argument must be an array, but is %s", name, TypeName(x))
	}
	anyT := name == "$anyElementTrue"
	for _, e := range a {
		if truthy(e) == anyT {
			return anyT, nil
		}
	}
	return !anyT, nil
}
