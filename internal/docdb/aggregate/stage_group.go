package aggregate

import (
	"context"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

func init() {
	stageParsers["$group"] = parseGroup
	stageParsers["$sortByCount"] = parseSortByCount
	stageParsers["$bucket"] = parseBucket
	stageParsers["$sort"] = parseSortStage
}

// accSpec is one output field of $group: an accumulator over an
// expression.
type accSpec struct {
	field string
	op    string
	expr  evalFn
}

// groupStage groups documents by an _id expression.
type groupStage struct {
	stageName string
	id        evalFn
	accs      []accSpec
	// sortByID sorts the output by _id ($bucket).
	sortByID bool
	// then runs after grouping ($sortByCount's sort).
	sortCountDesc bool
}

func (s *groupStage) name() string { return s.stageName }

var groupAccumulators = map[string]bool{
	"$sum": true, "$avg": true, "$min": true, "$max": true, "$first": true, "$last": true,
	"$push": true, "$addToSet": true, "$count": true, "$mergeObjects": true,
	"$stdDevPop": true, "$stdDevSamp": true,
}

// parseAccumulators parses {field: {$acc: expr}} output specs.
func parseAccumulators(stageName string, d bson.D, c *compiler, skipID bool) ([]accSpec, error) {
	var out []accSpec
	for _, e := range d {
		if skipID && e.Key == "_id" {
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			return nil, mongoerr.Newf(mongoerr.Location40236, "The field name '%s' cannot be an operator name", e.Key)
		}
		if strings.Contains(e.Key, ".") {
			return nil, mongoerr.Newf(mongoerr.Location40235, "The field name '%s' cannot contain '.'", e.Key)
		}
		spec, ok := asDoc(e.Value)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40234, "The field '%s' must be an accumulator object", e.Key)
		}
		if len(spec) != 1 {
			return nil, mongoerr.Newf(mongoerr.Location40238, "The field '%s' must specify one accumulator", e.Key)
		}
		op := spec[0].Key
		if !groupAccumulators[op] {
			return nil, mongoerr.Newf(mongoerr.Location15952, "unknown group operator '%s'", op)
		}
		arg := spec[0].Value
		if op == "$count" {
			if ad, ok := asDoc(arg); !ok || len(ad) != 0 {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "$count takes no arguments, i.e. $count:{}")
			}
			op, arg = "$sum", int32(1)
		}
		if _, ok := asArray(arg); ok && op != "$push" && op != "$addToSet" {
			return nil, mongoerr.Newf(mongoerr.Location40237, "The %s accumulator is a unary operator", op)
		}
		f, err := c.compile(arg)
		if err != nil {
			return nil, err
		}
		out = append(out, accSpec{field: e.Key, op: op, expr: f})
	}
	return out, nil
}

func parseGroup(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.New(mongoerr.Location15947, "a group's fields must be specified in an object")
	}
	c := newCompiler(opts.Vars)
	var idF evalFn
	for _, e := range d {
		if e.Key == "_id" {
			f, err := c.compile(e.Value)
			if err != nil {
				return nil, err
			}
			idF = f
		}
	}
	if idF == nil {
		return nil, mongoerr.New(mongoerr.Location15955, "a group specification must include an _id")
	}
	accs, err := parseAccumulators("$group", d, c, true)
	if err != nil {
		return nil, err
	}
	return &groupStage{stageName: "$group", id: idF, accs: accs}, nil
}

func parseSortByCount(arg any, opts Options) (stage, error) {
	valid := false
	switch x := arg.(type) {
	case string:
		valid = strings.HasPrefix(x, "$")
	case bson.D:
		valid = len(x) == 1 && strings.HasPrefix(x[0].Key, "$")
	}
	if !valid {
		return nil, mongoerr.New(mongoerr.Location40148, "the sortByCount field must be defined as a $-prefixed path or an expression")
	}
	f, err := newCompiler(opts.Vars).compile(arg)
	if err != nil {
		return nil, err
	}
	return &groupStage{stageName: "$sortByCount", id: f, accs: []accSpec{{field: "count", op: "$sum", expr: constant(int32(1))}}, sortCountDesc: true}, nil
}

// group is one group being accumulated.
type group struct {
	id   any
	accs []accumulator
}

func (s *groupStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	var out []bson.D
	loaded := false
	i := 0
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			groups := map[string]*group{}
			var order []*group
			for {
				d, ok, err := in.Next(ctx)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					break
				}
				v := env.Vars.WithRoot(d)
				id, err := s.id(v, d)
				if err != nil {
					return nil, false, err
				}
				if IsMissing(id) {
					id = nil
				}
				key := canonicalKey(id)
				g, ok := groups[key]
				if !ok {
					g = &group{id: id}
					for _, a := range s.accs {
						acc, _ := newAccumulator(a.op)
						g.accs = append(g.accs, acc)
					}
					groups[key] = g
					order = append(order, g)
				}
				for j, a := range s.accs {
					x, err := a.expr(v, d)
					if err != nil {
						return nil, false, err
					}
					if err := g.accs[j].add(x); err != nil {
						return nil, false, err
					}
				}
			}
			for _, g := range order {
				doc := bson.D{{Key: "_id", Value: g.id}}
				for j, a := range s.accs {
					doc = append(doc, bson.E{Key: a.field, Value: g.accs[j].result()})
				}
				out = append(out, doc)
			}
			switch {
			case s.sortByID:
				sort.SliceStable(out, func(a, b int) bool { return compare(out[a][0].Value, out[b][0].Value) < 0 })
			case s.sortCountDesc:
				sort.SliceStable(out, func(a, b int) bool { return compare(out[a][1].Value, out[b][1].Value) > 0 })
			}
		}
		if i >= len(out) {
			return nil, false, nil
		}
		i++
		return out[i-1], true, nil
	}}, nil
}

// canonicalKey maps values that compare equal to the same string: numbers
// of different types with one value, documents and arrays element-wise.
func canonicalKey(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	switch {
	case nullish(v):
		b.WriteString("z;")
		return
	case isNumber(v):
		b.WriteString("n:")
		b.WriteString(numberKey(v))
		b.WriteByte(';')
		return
	}
	switch x := v.(type) {
	case string:
		b.WriteString("s:" + strconv.Quote(x) + ";")
	case bson.Symbol:
		b.WriteString("s:" + strconv.Quote(string(x)) + ";")
	case bson.D:
		b.WriteString("{")
		for _, e := range x {
			b.WriteString(strconv.Quote(e.Key))
			b.WriteByte('=')
			writeKey(b, e.Value)
		}
		b.WriteString("}")
	case bson.A:
		b.WriteString("[")
		for _, e := range x {
			writeKey(b, e)
		}
		b.WriteString("]")
	default:
		b.WriteString(TypeName(v) + ":" + FormatValue(v) + ";")
	}
}

// numberKey renders a number so that equal values of any numeric type give
// the same text.
func numberKey(v any) string {
	switch classify(v) {
	case numInt, numLong:
		return strconv.FormatInt(toInt64(v), 10)
	case numDouble:
		f := toFloat(v)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Inf"
		case math.IsInf(f, -1):
			return "-Inf"
		case f == math.Trunc(f) && math.Abs(f) < 9e18:
			return strconv.FormatInt(int64(f), 10)
		}
		return new(big.Rat).SetFloat64(f).RatString()
	}
	d := toDecimal(v)
	if d.IsNaN() {
		return "NaN"
	}
	if s := d.IsInf(); s != 0 {
		if s > 0 {
			return "Inf"
		}
		return "-Inf"
	}
	if bi, ok := decToBigInt(d); ok {
		return bi.String()
	}
	a := decOf(d)
	r := new(big.Rat).SetFrac(a.coef, new(big.Int).Exp(bigTen, big.NewInt(int64(-a.exp)), nil))
	return r.RatString()
}

// parseBucket parses $bucket as a grouping by boundaries.
func parseBucket(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40201, "Argument to $bucket stage must be an object, but found type: %s.", TypeName(arg))
	}
	c := newCompiler(opts.Vars)
	var groupBy evalFn
	var boundaries bson.A
	var def any
	hasDefault := false
	var output bson.D
	hasOutput := false
	for _, e := range d {
		switch e.Key {
		case "groupBy":
			valid := false
			switch x := e.Value.(type) {
			case string:
				valid = strings.HasPrefix(x, "$")
			case bson.D:
				valid = len(x) > 0 && strings.HasPrefix(x[0].Key, "$")
			}
			if !valid {
				return nil, mongoerr.Newf(mongoerr.Location40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: %s.", fmtValue(e.Value))
			}
			f, err := c.compile(e.Value)
			if err != nil {
				return nil, err
			}
			groupBy = f
		case "boundaries":
			a, ok := asArray(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40200, "The $bucket 'boundaries' field must be an array, but found type: %s.", TypeName(e.Value))
			}
			boundaries = a
		case "default":
			def, hasDefault = e.Value, true
		case "output":
			o, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40196, "The $bucket 'output' field must be an object, but found type: %s.", TypeName(e.Value))
			}
			output, hasOutput = o, true
		default:
			return nil, mongoerr.Newf(mongoerr.Location40197, "Unrecognized option to $bucket: %s.", e.Key)
		}
	}
	if groupBy == nil || boundaries == nil {
		return nil, mongoerr.New(mongoerr.Location40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.")
	}
	if len(boundaries) < 2 {
		return nil, mongoerr.Newf(mongoerr.Location40192, "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(boundaries))
	}
	for i := 1; i < len(boundaries); i++ {
		a, b := boundaries[i-1], boundaries[i]
		if typeRank(a) != typeRank(b) {
			return nil, mongoerr.Newf(mongoerr.Location40193, "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types %s and %s.", TypeName(a), TypeName(b))
		}
		if compare(a, b) >= 0 {
			return nil, mongoerr.Newf(mongoerr.Location40194, "The 'boundaries' option to $bucket must be sorted, but elements %d and %d are not in ascending order (%s is not less than %s).", i-1, i, fmtValue(a), fmtValue(b))
		}
	}
	if hasDefault && typeRank(def) == typeRank(boundaries[0]) && compare(def, boundaries[0]) >= 0 && compare(def, boundaries[len(boundaries)-1]) < 0 {
		return nil, mongoerr.New(mongoerr.Location40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
	}
	var accs []accSpec
	if hasOutput {
		var err error
		if accs, err = parseAccumulators("$bucket", output, c, false); err != nil {
			return nil, err
		}
	} else {
		accs = []accSpec{{field: "count", op: "$sum", expr: constant(int32(1))}}
	}
	id := func(v *Vars, doc bson.D) (any, error) {
		x, err := groupBy(v, doc)
		if err != nil {
			return nil, err
		}
		if IsMissing(x) {
			x = nil
		}
		if typeRank(x) == typeRank(boundaries[0]) && compare(x, boundaries[0]) >= 0 && compare(x, boundaries[len(boundaries)-1]) < 0 {
			i := sort.Search(len(boundaries), func(i int) bool { return compare(boundaries[i], x) > 0 })
			return boundaries[i-1], nil
		}
		if !hasDefault {
			return nil, mongoerr.New(mongoerr.Location40066, "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def, nil
	}
	return &groupStage{stageName: "$bucket", id: id, accs: accs, sortByID: true}, nil
}

// typeRank groups values by canonical type for $bucket's checks.
func typeRank(v any) int {
	if isNumber(v) {
		return 1
	}
	if IsMissing(v) {
		return 0
	}
	return 2 + len(TypeName(v))*100 + int(TypeName(v)[0])
}

// sortStage sorts by a sort specification (query.Sort: MongoDB's sort
// keys), keeping only the first limit documents when a $limit follows.
type sortStage struct {
	sort  *query.Sort
	limit int64
}

func (s *sortStage) name() string { return "$sort" }

func parseSortStage(arg any, _ Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.New(mongoerr.Location15973, "the $sort key specification must be an object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.Location15976, "$sort stage must have at least one sort key")
	}
	srt, err := query.ParseSort(d)
	if err != nil {
		return nil, err
	}
	return &sortStage{sort: srt, limit: -1}, nil
}

func (s *sortStage) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	type keyed struct {
		doc bson.D
		key []any
	}
	var out []keyed
	loaded := false
	i := 0
	return &funcIter{in: in, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			trim := func() {
				sort.SliceStable(out, func(a, b int) bool { return s.sort.CompareKeys(out[a].key, out[b].key) < 0 })
				if s.limit >= 0 && int64(len(out)) > s.limit {
					out = out[:s.limit]
				}
			}
			for {
				d, ok, err := in.Next(ctx)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					break
				}
				out = append(out, keyed{doc: d, key: s.sort.KeyOf(d)})
				if s.limit >= 0 && int64(len(out)) > 2*s.limit+64 {
					trim()
				}
			}
			trim()
		}
		if i >= len(out) {
			return nil, false, nil
		}
		i++
		return out[i-1].doc, true, nil
	}}, nil
}
