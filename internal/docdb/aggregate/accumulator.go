package aggregate

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// accumulator folds the values of one group ($group, $bucket) or of an
// array (the expression forms of $sum, $avg, $min and $max).
type accumulator interface {
	add(v any) error
	result() any
}

// newAccumulator returns a fresh accumulator for op, or false.
// newAccumulator returns the accumulator op; $min, $max and $addToSet
// compare strings by the collation c (nil: bytewise).
func newAccumulator(op string, c *collation.Collator) (accumulator, bool) {
	switch op {
	case "$sum", "$count":
		return &sumAcc{sum: int32(0)}, true
	case "$avg":
		return &avgAcc{sum: int32(0)}, true
	case "$min":
		return &minMaxAcc{sign: -1, coll: c}, true
	case "$max":
		return &minMaxAcc{sign: 1, coll: c}, true
	case "$first":
		return &firstAcc{}, true
	case "$last":
		return &lastAcc{}, true
	case "$push":
		return &pushAcc{out: bson.A{}}, true
	case "$addToSet":
		return &setAcc{out: bson.A{}, coll: c}, true
	case "$mergeObjects":
		return &mergeAcc{out: bson.D{}}, true
	case "$stdDevPop", "$stdDevSamp":
		return &stdDevAcc{samp: op == "$stdDevSamp"}, true
	}
	return nil, false
}

// sumAcc adds the numeric values and ignores the rest.
type sumAcc struct{ sum any }

func (a *sumAcc) add(v any) error {
	if isNumber(v) {
		a.sum = numAdd(a.sum, v)
	}
	return nil
}
func (a *sumAcc) result() any { return a.sum }

// avgAcc averages the numeric values; with none the result is null.
type avgAcc struct {
	sum any
	n   int64
}

func (a *avgAcc) add(v any) error {
	if isNumber(v) {
		a.sum = numAdd(a.sum, v)
		a.n++
	}
	return nil
}

func (a *avgAcc) result() any {
	if a.n == 0 {
		return nil
	}
	if classify(a.sum) == numDecimal {
		return decDiv(toDecimal(a.sum), decFromInt(a.n))
	}
	return toFloat(a.sum) / float64(a.n)
}

// minMaxAcc keeps the smallest or largest non-null value.
type minMaxAcc struct {
	sign int
	val  any
	set  bool
	coll *collation.Collator
}

func (a *minMaxAcc) add(v any) error {
	if nullish(v) {
		return nil
	}
	if !a.set || compareBy(a.coll, v, a.val)*a.sign > 0 {
		a.val, a.set = v, true
	}
	return nil
}

func (a *minMaxAcc) result() any {
	if !a.set {
		return nil
	}
	return a.val
}

type firstAcc struct {
	val any
	set bool
}

func (a *firstAcc) add(v any) error {
	if !a.set {
		a.val, a.set = arrayValue(v), true
	}
	return nil
}
func (a *firstAcc) result() any { return a.val }

type lastAcc struct{ val any }

func (a *lastAcc) add(v any) error { a.val = arrayValue(v); return nil }
func (a *lastAcc) result() any     { return a.val }

// pushAcc collects the values; missing values are skipped.
type pushAcc struct{ out bson.A }

func (a *pushAcc) add(v any) error {
	if !IsMissing(v) {
		a.out = append(a.out, v)
	}
	return nil
}
func (a *pushAcc) result() any { return a.out }

// setAcc collects the distinct values.
type setAcc struct {
	out  bson.A
	coll *collation.Collator
}

func (a *setAcc) add(v any) error {
	if IsMissing(v) {
		return nil
	}
	for _, e := range a.out {
		if compareBy(a.coll, e, v) == 0 {
			return nil
		}
	}
	a.out = append(a.out, v)
	return nil
}
func (a *setAcc) result() any { return a.out }

type mergeAcc struct{ out bson.D }

func (a *mergeAcc) add(v any) error {
	if nullish(v) {
		return nil
	}
	d, ok := asDoc(v)
	if !ok {
		return mongoerr.Newf(mongoerr.Location40400, "$mergeObjects requires object inputs, but input %s is of type %s", fmtValue(v), TypeName(v))
	}
	for _, e := range d {
		a.out = setField(a.out, e.Key, e.Value)
	}
	return nil
}
func (a *mergeAcc) result() any { return a.out }

// stdDevAcc computes the population or sample standard deviation with
// Welford's method.
type stdDevAcc struct {
	samp    bool
	n       float64
	mean, m float64
}

func (a *stdDevAcc) add(v any) error {
	if !isNumber(v) {
		return nil
	}
	x := toFloat(v)
	a.n++
	d := x - a.mean
	a.mean += d / a.n
	a.m += d * (x - a.mean)
	return nil
}

func (a *stdDevAcc) result() any {
	n := a.n
	if a.samp {
		n--
	}
	if n <= 0 {
		return nil
	}
	return sqrt(a.m / n)
}

func init() {
	register(compileAccExpr, "$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp")
}

// compileAccExpr compiles the expression forms of the accumulators: with
// one array operand they fold its elements, otherwise their operands.
func compileAccExpr(c *compiler, name string, arg any) (evalFn, error) {
	fs, err := c.compileArgs(name, arg, 0, -1)
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		xs, err := evalAll(fs, v, doc)
		if err != nil {
			return nil, err
		}
		if len(xs) == 1 {
			if a, ok := asArray(xs[0]); ok {
				xs = a
			}
		}
		acc, _ := newAccumulator(name, v.collation())
		for _, x := range xs {
			if err := acc.add(x); err != nil {
				return nil, err
			}
		}
		return acc.result(), nil
	}, nil
}
