package query

import (
	"math"
	"math/big"
	"regexp"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// predicate tests one value reached by a path (MongoDB's
// matchesSingleElement). For $elemMatch it also returns the index of the
// array element that matched, or -1.
type predicate interface {
	matches(c Candidate) (bool, int)
}

// cmpOp is a comparison operator.
type cmpOp int

const (
	opEQ cmpOp = iota
	opLT
	opLTE
	opGT
	opGTE
)

// cmpPred is $eq, $lt, $lte, $gt or $gte against a constant. Values of a
// different canonical type never match (type bracketing), except that null
// and undefined compare equal and MinKey/MaxKey operands compare across
// types. NaN equals only NaN and is neither above nor below anything.
type cmpPred struct {
	op  cmpOp
	rhs any
}

func (p *cmpPred) matches(c Candidate) (bool, int) {
	if c.Missing {
		// A missing field equals null.
		return isNull(p.rhs) && (p.op == opEQ || p.op == opLTE || p.op == opGTE), -1
	}
	return compareToRHS(p.op, c.Value, p.rhs), -1
}

func isNull(v any) bool {
	switch v.(type) {
	case nil, bson.Null:
		return true
	}
	return false
}

func compareToRHS(op cmpOp, v, rhs any) bool {
	lr, rr := CanonicalRank(v), CanonicalRank(rhs)
	if lr != rr {
		if lr+rr == RankNull+RankUndefined {
			return op == opEQ || op == opLTE || op == opGTE
		}
		switch rhs.(type) {
		case bson.MinKey, bson.MaxKey:
			c := cmpInt(lr, rr)
			switch op {
			case opLT, opLTE:
				return c < 0
			case opGT, opGTE:
				return c > 0
			}
		}
		return false
	}
	if lr == RankNumber {
		ln, rn := isNaN(v), isNaN(rhs)
		if ln || rn {
			switch op {
			case opLT, opGT:
				return false
			}
			return ln && rn
		}
	}
	c := Compare(v, rhs)
	switch op {
	case opEQ:
		return c == 0
	case opLT:
		return c < 0
	case opLTE:
		return c <= 0
	case opGT:
		return c > 0
	}
	return c >= 0
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case float32:
		return math.IsNaN(float64(x))
	case bson.Decimal128:
		return x.IsNaN()
	}
	return false
}

// inPred is $in: equality with any listed value, or a match of any listed
// regular expression. A null in the list matches missing fields.
type inPred struct {
	values  []any
	regexes []*regexPred
	hasNull bool
}

func (p *inPred) matches(c Candidate) (bool, int) {
	if c.Missing {
		return p.hasNull, -1
	}
	for _, v := range p.values {
		if compareToRHS(opEQ, c.Value, v) {
			return true, -1
		}
	}
	for _, r := range p.regexes {
		if ok, _ := r.matches(c); ok {
			return true, -1
		}
	}
	return false, -1
}

// regexPred matches strings and symbols against a regular expression; a
// BSON regex value matches when its pattern and options are the same.
type regexPred struct {
	re      *regexp.Regexp
	pattern string
	options string
}

func (p *regexPred) matches(c Candidate) (bool, int) {
	switch x := c.Value.(type) {
	case string:
		return p.re.MatchString(x), -1
	case bson.Symbol:
		return p.re.MatchString(string(x)), -1
	case bson.Regex:
		return x.Pattern == p.pattern && x.Options == p.options, -1
	}
	return false, -1
}

type existsPred struct{}

func (existsPred) matches(c Candidate) (bool, int) { return !c.Missing, -1 }

// typePred is $type: the value's BSON type is in the set ("number" matches
// all four numeric types).
type typePred struct {
	types      []bson.Type
	allNumbers bool
}

func (p *typePred) matches(c Candidate) (bool, int) {
	if c.Missing {
		return false, -1
	}
	t := TypeOf(c.Value)
	if p.allNumbers && rankOfType(t) == RankNumber {
		return true, -1
	}
	for _, want := range p.types {
		if t == want {
			return true, -1
		}
	}
	return false, -1
}

// modPred is $mod: the number truncated to an integer, modulo divisor,
// equals remainder. NaN, infinities and values beyond int64 never match.
type modPred struct {
	divisor, remainder int64
}

func (p *modPred) matches(c Candidate) (bool, int) {
	if c.Missing || !IsNumber(c.Value) {
		return false, -1
	}
	n, ok := coerceInt64(c.Value)
	if !ok {
		return false, -1
	}
	if p.divisor == -1 {
		return p.remainder == 0, -1 // avoids MinInt64 % -1 overflow; x % -1 == 0
	}
	return n%p.divisor == p.remainder, -1
}

// coerceInt64 truncates a number to int64, failing for NaN, infinities and
// values out of range (MongoDB's tryCoerce).
func coerceInt64(v any) (int64, bool) {
	n, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	switch n.kind {
	case 'i':
		return n.i, true
	case 'u':
		return 0, false
	case 'f':
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return 0, false
		}
		t := math.Trunc(n.f)
		if t >= 0x1p63 || t < -0x1p63 {
			return 0, false
		}
		return int64(t), true
	}
	if n.d.IsNaN() || n.d.IsInf() != 0 {
		return 0, false
	}
	r := decimalRat(n.d)
	q := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// sizePred is $size: an array of exactly n elements.
type sizePred struct{ n int }

func (p *sizePred) matches(c Candidate) (bool, int) {
	a, ok := AsArray(c.Value)
	return ok && len(a) == p.n, -1
}

// elemMatchObjectPred is $elemMatch with a query: some element that is a
// document (or an array, read as a document with keys "0", "1", ...)
// matches the sub-filter.
type elemMatchObjectPred struct{ sub node }

func (p *elemMatchObjectPred) matches(c Candidate) (bool, int) {
	arr, ok := AsArray(c.Value)
	if !ok {
		return false, -1
	}
	for i, e := range arr {
		var d bson.D
		if sub, ok := AsDocument(e); ok {
			d = sub
		} else if a, ok := AsArray(e); ok {
			d = arrayAsDoc(a)
		} else {
			continue
		}
		ec := evalCtx{index: -1}
		if p.sub.match(d, &ec) && ec.err == nil {
			return true, i
		}
	}
	return false, -1
}

func arrayAsDoc(a bson.A) bson.D {
	d := make(bson.D, len(a))
	for i, v := range a {
		d[i] = bson.E{Key: itoa(i), Value: v}
	}
	return d
}

// elemMatchValuePred is $elemMatch with operators: some element satisfies
// all of them (elements are tested as they are, nested arrays unexpanded).
type elemMatchValuePred struct{ preds []predicate }

func (p *elemMatchValuePred) matches(c Candidate) (bool, int) {
	arr, ok := AsArray(c.Value)
	if !ok {
		return false, -1
	}
	for i, e := range arr {
		if allMatch(p.preds, Candidate{Value: e, ArrayIndex: -1}) {
			return true, i
		}
	}
	return false, -1
}

func allMatch(preds []predicate, c Candidate) bool {
	for _, p := range preds {
		if ok, _ := p.matches(c); !ok {
			return false
		}
	}
	return true
}

// notPred negates the conjunction of preds on one value (for $not, $ne,
// $nin and {$exists: false} inside $elemMatch).
type notPred struct{ preds []predicate }

func (p *notPred) matches(c Candidate) (bool, int) { return !allMatch(p.preds, c), -1 }

// andPred is the conjunction of preds on one value ($all inside $elemMatch).
type andPred struct{ preds []predicate }

func (p *andPred) matches(c Candidate) (bool, int) { return allMatch(p.preds, c), -1 }

type constPred struct{ value bool }

func (p constPred) matches(Candidate) (bool, int) { return p.value, -1 }
