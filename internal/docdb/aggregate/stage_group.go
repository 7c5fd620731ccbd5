package aggregate

import (
	"context"
	"errors"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/spill"
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
	mem := env.GroupMemory
	var sp *spill.Sorter[groupRecord]
	var merged *mergedGroups
	closeSpill := func() {
		if sp != nil {
			sp.Close()
		}
	}
	result := func(g *group) bson.D {
		doc := bson.D{{Key: "_id", Value: g.id}}
		for j, a := range s.accs {
			doc = append(doc, bson.E{Key: a.field, Value: g.accs[j].result()})
		}
		return doc
	}
	return &funcIter{in: in, close: closeSpill, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			groups := map[string]*group{}
			var order []*group
			var keys []string
			var used int64
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
				key := groupKey(id, env.Collation)
				g, ok := groups[key]
				if !ok {
					g = &group{id: id}
					for _, a := range s.accs {
						acc, _ := newAccumulator(a.op, env.Collation)
						g.accs = append(g.accs, acc)
					}
					groups[key] = g
					order = append(order, g)
					keys = append(keys, key)
					used += groupRecordSize(key, id, len(s.accs))
				}
				for j, a := range s.accs {
					x, err := a.expr(v, d)
					if err != nil {
						return nil, false, err
					}
					if growingAccumulator(a.op) {
						used += docSize(x)
					}
					if err := g.accs[j].add(x); err != nil {
						return nil, false, err
					}
				}
				if mem.Limit > 0 && used > mem.Limit {
					if !mem.AllowDisk {
						return nil, false, mongoerr.New(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.")
					}
					if sp == nil {
						sp = newGroupSpill(mem)
					}
					if err := spillGroups(sp, order, keys); err != nil {
						return nil, false, err
					}
					groups, order, keys, used = map[string]*group{}, nil, nil, 0
				}
			}
			if sp == nil {
				for _, g := range order {
					out = append(out, result(g))
				}
			} else {
				if err := addGroups(sp, order, keys); err != nil {
					return nil, false, err
				}
				if err := sp.Sort(); err != nil {
					return nil, false, err
				}
				merged = &mergedGroups{sp: sp, s: s, coll: env.Collation}
				if s.sortByID || s.sortCountDesc {
					for {
						g, ok, err := merged.next()
						if err != nil {
							return nil, false, err
						}
						if !ok {
							break
						}
						out = append(out, result(g))
					}
					merged = nil
					closeSpill()
				}
			}
			switch {
			case s.sortByID:
				sort.SliceStable(out, func(a, b int) bool { return compareBy(env.Collation, out[a][0].Value, out[b][0].Value) < 0 })
			case s.sortCountDesc:
				sort.SliceStable(out, func(a, b int) bool { return compare(out[a][1].Value, out[b][1].Value) > 0 })
			}
		}
		if merged != nil {
			g, ok, err := merged.next()
			if err != nil || !ok {
				closeSpill()
				return nil, false, err
			}
			return result(g), true, nil
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
// groupKey is the key of a group _id: values equal under the collation
// (nil for the simple one) share it.
func groupKey(id any, c *collation.Collator) string {
	if c != nil {
		id = c.Value(id)
	}
	return canonicalKey(id)
}

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
	bo, err := parseBucketOptions(d, c)
	if err != nil {
		return nil, err
	}
	if err := bo.check(); err != nil {
		return nil, err
	}
	var accs []accSpec
	if bo.hasOutput {
		if accs, err = parseAccumulators("$bucket", bo.output, c, false); err != nil {
			return nil, err
		}
	} else {
		accs = []accSpec{{field: "count", op: "$sum", expr: constant(int32(1))}}
	}
	return &groupStage{stageName: "$bucket", id: bo.id, accs: accs, sortByID: true}, nil
}

// bucketOptions are $bucket's options.
type bucketOptions struct {
	groupBy    evalFn
	boundaries bson.A
	def        any
	hasDefault bool
	output     bson.D
	hasOutput  bool
}

// parseBucketOptions reads $bucket's options, compiling groupBy.
func parseBucketOptions(d bson.D, c *compiler) (*bucketOptions, error) {
	bo := &bucketOptions{}
	for _, e := range d {
		switch e.Key {
		case "groupBy":
			f, err := bucketGroupBy(e.Value, c)
			if err != nil {
				return nil, err
			}
			bo.groupBy = f
		case "boundaries":
			a, ok := asArray(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40200, "The $bucket 'boundaries' field must be an array, but found type: %s.", TypeName(e.Value))
			}
			bo.boundaries = a
		case "default":
			bo.def, bo.hasDefault = e.Value, true
		case "output":
			o, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40196, "The $bucket 'output' field must be an object, but found type: %s.", TypeName(e.Value))
			}
			bo.output, bo.hasOutput = o, true
		default:
			return nil, mongoerr.Newf(mongoerr.Location40197, "Unrecognized option to $bucket: %s.", e.Key)
		}
	}
	return bo, nil
}

// bucketGroupBy compiles $bucket's groupBy: a $-prefixed path or an
// expression object.
func bucketGroupBy(v any, c *compiler) (evalFn, error) {
	valid := false
	switch x := v.(type) {
	case string:
		valid = strings.HasPrefix(x, "$")
	case bson.D:
		valid = len(x) > 0 && strings.HasPrefix(x[0].Key, "$")
	}
	if !valid {
		return nil, mongoerr.Newf(mongoerr.Location40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: %s.", fmtValue(v))
	}
	return c.compile(v)
}

// check enforces the rules on groupBy, boundaries and default together.
func (bo *bucketOptions) check() error {
	if bo.groupBy == nil || bo.boundaries == nil {
		return mongoerr.New(mongoerr.Location40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.")
	}
	bounds := bo.boundaries
	if len(bounds) < 2 {
		return mongoerr.Newf(mongoerr.Location40192, "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(bounds))
	}
	for i := 1; i < len(bounds); i++ {
		a, b := bounds[i-1], bounds[i]
		if typeRank(a) != typeRank(b) {
			return mongoerr.Newf(mongoerr.Location40193, "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types %s and %s.", TypeName(a), TypeName(b))
		}
		if compare(a, b) >= 0 {
			return mongoerr.Newf(mongoerr.Location40194, "The 'boundaries' option to $bucket must be sorted, but elements %d and %d are not in ascending order (%s is not less than %s).", i-1, i, fmtValue(a), fmtValue(b))
		}
	}
	if bo.hasDefault && bo.inRange(bo.def, nil) {
		return mongoerr.New(mongoerr.Location40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
	}
	return nil
}

// inRange reports whether x falls between the lowest boundary (included)
// and the highest (excluded), strings compared by the collation c.
func (bo *bucketOptions) inRange(x any, c *collation.Collator) bool {
	b := bo.boundaries
	return typeRank(x) == typeRank(b[0]) && compareBy(c, x, b[0]) >= 0 && compareBy(c, x, b[len(b)-1]) < 0
}

// id returns the bucket of doc: the boundary at or below its groupBy
// value, or the default.
func (bo *bucketOptions) id(v *Vars, doc bson.D) (any, error) {
	x, err := bo.groupBy(v, doc)
	if err != nil {
		return nil, err
	}
	if IsMissing(x) {
		x = nil
	}
	c := v.collation()
	if bo.inRange(x, c) {
		b := bo.boundaries
		i := sort.Search(len(b), func(i int) bool { return compareBy(c, b[i], x) > 0 })
		return b[i-1], nil
	}
	if !bo.hasDefault {
		return nil, mongoerr.New(mongoerr.Location40066, "$switch could not find a matching branch for an input, and no default was specified.")
	}
	return bo.def, nil
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
	mem := env.SortMemory
	limit := mem.Limit
	if limit <= 0 {
		limit = math.MaxInt64
	}
	var keep int64
	if s.limit >= 0 {
		keep = s.limit
	}
	srt := s.sort
	if env.Collation != nil {
		srt = srt.WithCollation(env.Collation)
	}
	sorter := spill.New(spill.Options[sortedDoc]{
		Compare: func(a, b sortedDoc) int { return srt.CompareKeys(a.key, b.key) },
		Size:    func(v sortedDoc) int64 { return docSize(v.doc) },
		Encode: func(dst []byte, v sortedDoc) ([]byte, error) {
			raw, err := bson.Marshal(v.doc)
			return append(dst, raw...), err
		},
		Decode:    func(b []byte) (sortedDoc, error) { return decodeSorted(b, srt) },
		MaxMemory: limit,
		AllowDisk: mem.AllowDisk,
		Dir:       mem.Dir,
		Keep:      keep,
	})
	loaded := false
	expired := env.Expired
	return &funcIter{in: in, close: func() { sorter.Close() }, next: func(ctx context.Context) (bson.D, bool, error) {
		if !loaded {
			loaded = true
			for {
				d, ok, err := in.Next(ctx)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					break
				}
				err = sorter.Add(sortedDoc{doc: d, key: srt.KeyOf(d)})
				if errors.Is(err, spill.ErrMemoryLimit) {
					return nil, false, mongoerr.Newf(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", mem.Limit)
				}
				if err != nil {
					return nil, false, err
				}
			}
			if err := sorter.Sort(); err != nil {
				return nil, false, err
			}
		}
		for {
			v, ok, err := sorter.Next()
			if err != nil || !ok {
				sorter.Close()
				return nil, false, err
			}
			// Re-check: the document may have expired since the sort.
			if expired != nil && expired(v.doc) {
				continue
			}
			return v.doc, true, nil
		}
	}}, nil
}

// sortedDoc is a document held by $sort with its sort key.
type sortedDoc struct {
	doc bson.D
	key []any
}

func decodeSorted(b []byte, srt *query.Sort) (sortedDoc, error) {
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		return sortedDoc{}, err
	}
	return sortedDoc{doc: d, key: srt.KeyOf(d)}, nil
}

// docSize estimates the memory a decoded document holds.
func docSize(v any) int64 {
	switch x := v.(type) {
	case bson.D:
		n := int64(24)
		for _, e := range x {
			n += 32 + int64(len(e.Key)) + docSize(e.Value)
		}
		return n
	case bson.A:
		n := int64(24)
		for _, e := range x {
			n += 16 + docSize(e)
		}
		return n
	case string:
		return 16 + int64(len(x))
	case bson.Binary:
		return 32 + int64(len(x.Data))
	}
	return 16
}
