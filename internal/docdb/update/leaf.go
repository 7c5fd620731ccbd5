package update

import (
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// leaf is one operator applied at one path.
type leaf struct {
	op   string
	path string
	arg  any

	// $push / $addToSet
	each     bson.A
	hasSlice bool
	slice    int64
	sortSpec any // nil, int (1/-1) or *query.Sort
	hasPos   bool
	position int64

	// $currentDate
	timestamp bool

	// $pull
	pullFilter *query.Filter // element matched as a document
	pullValue  *query.Filter // element matched as a value ({"": cond})

	// $rename
	from []string // for $rename.to: the source path
	dest *leaf    // for $rename: the destination leaf
}

// creates reports whether the operator creates a missing field.
func (l *leaf) creates(insert bool) bool {
	switch l.op {
	case "$unset", "$pop", "$pull", "$pullAll", "$rename":
		return false
	case "$setOnInsert":
		return insert
	}
	return true
}

func isNumber(v any) bool { return aggregate.IsNumber(v) }

// parseLeaf validates the argument of one operator.
func parseLeaf(op, path string, arg any, opts Options) (*leaf, error) {
	l := &leaf{op: op, path: path, arg: arg}
	switch op {
	case "$inc", "$mul":
		if !isNumber(arg) {
			verb := "increment"
			if op == "$mul" {
				verb = "multiply"
			}
			return nil, mongoerr.Newf(mongoerr.TypeMismatch, "Cannot %s with non-numeric argument: {%s: %s}", verb, path, aggregate.FormatValue(arg))
		}
	case "$rename":
		to, ok := arg.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.BadValue, "The 'to' field for $rename must be a string: %s: %s", path, aggregate.FormatValue(arg))
		}
		if to == path {
			return nil, mongoerr.Newf(mongoerr.BadValue, "The source and target field for $rename must differ: %s: %s", path, aggregate.FormatValue(arg))
		}
		if strings.HasPrefix(to, path+".") || strings.HasPrefix(path, to+".") {
			return nil, mongoerr.Newf(mongoerr.BadValue, "The source and target field for $rename must not be on the same path: %s: %s", path, aggregate.FormatValue(arg))
		}
	case "$currentDate":
		switch x := arg.(type) {
		case bool:
		case bson.D:
			if len(x) != 1 || x[0].Key != "$type" {
				return nil, mongoerr.Newf(mongoerr.BadValue, "The only valid field of the option is '$type': {$currentDate: {field : {$type: 'date/timestamp'}}}")
			}
			t, _ := x[0].Value.(string)
			switch t {
			case "date":
			case "timestamp":
				l.timestamp = true
			default:
				return nil, mongoerr.New(mongoerr.BadValue, "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}")
			}
		default:
			return nil, mongoerr.Newf(mongoerr.BadValue, "%s is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).", aggregate.TypeName(arg))
		}
	case "$pop":
		if !isNumber(arg) {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "Expected a number in: %s: %s", path, aggregate.FormatValue(arg))
		}
		f := toFloat(arg)
		if f != 1 && f != -1 {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "$pop expects 1 or -1, found: %s", aggregate.FormatValue(arg))
		}
	case "$pullAll":
		a, ok := arg.(bson.A)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.BadValue, "$pullAll requires an array argument but was given a %s", aggregate.TypeName(arg))
		}
		l.each = a
	case "$push", "$addToSet":
		if err := l.parseEach(opts); err != nil {
			return nil, err
		}
	case "$pull":
		if err := l.parsePull(opts); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	case bson.Decimal128:
		f, _ := aggregate.ToDouble(x)
		return f
	}
	return math.NaN()
}

// parseEach parses the $each form of $push and $addToSet and its
// modifiers.
func (l *leaf) parseEach(opts Options) error {
	d, ok := l.arg.(bson.D)
	eachAt := -1
	if ok {
		for i, e := range d {
			if e.Key == "$each" {
				eachAt = i
				break
			}
		}
	}
	if eachAt < 0 {
		l.each = bson.A{l.arg}
		return nil
	}
	each, ok := d[eachAt].Value.(bson.A)
	if !ok {
		return mongoerr.Newf(mongoerr.BadValue, "The argument to $each in %s must be an array but it was of type: %s", l.op, aggregate.TypeName(d[eachAt].Value))
	}
	l.each = each
	for i, e := range d {
		if i == eachAt {
			continue
		}
		if l.op == "$addToSet" {
			return mongoerr.Newf(mongoerr.BadValue, "Found unexpected fields after $each in $addToSet: %s", aggregate.FormatValue(d))
		}
		switch e.Key {
		case "$slice":
			if !isNumber(e.Value) || toFloat(e.Value) != math.Trunc(toFloat(e.Value)) {
				return mongoerr.Newf(mongoerr.BadValue, "The value for $slice must be an integer value but was given type: %s", aggregate.TypeName(e.Value))
			}
			l.hasSlice, l.slice = true, int64(toFloat(e.Value))
		case "$position":
			if !isNumber(e.Value) || toFloat(e.Value) != math.Trunc(toFloat(e.Value)) {
				return mongoerr.Newf(mongoerr.BadValue, "The value for $position must be an integer value, not of type: %s", aggregate.TypeName(e.Value))
			}
			l.hasPos, l.position = true, int64(toFloat(e.Value))
		case "$sort":
			if err := l.parseSort(e.Value); err != nil {
				return err
			}
		default:
			return mongoerr.Newf(mongoerr.BadValue, "Unrecognized clause in $push: %s", e.Key)
		}
	}
	return nil
}

func (l *leaf) parseSort(v any) error {
	bad := mongoerr.New(mongoerr.BadValue, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	if isNumber(v) {
		f := toFloat(v)
		if f != 1 && f != -1 {
			return bad
		}
		l.sortSpec = int(f)
		return nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.BadValue, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	}
	if len(d) == 0 {
		return mongoerr.New(mongoerr.BadValue, "The $sort pattern is empty when it should be a set of fields.")
	}
	for _, e := range d {
		if e.Key == "" || strings.HasPrefix(e.Key, "$") || strings.HasPrefix(e.Key, ".") || strings.HasSuffix(e.Key, ".") || strings.Contains(e.Key, "..") {
			return mongoerr.New(mongoerr.BadValue, "The $sort field is a special identifier, which is not allowed: "+e.Key)
		}
		if !isNumber(e.Value) || (toFloat(e.Value) != 1 && toFloat(e.Value) != -1) {
			return bad
		}
	}
	srt, err := query.ParseSort(d)
	if err != nil {
		return err
	}
	l.sortSpec = srt
	return nil
}

// parsePull parses the condition of $pull: a document of field conditions
// matches document elements; an operator document matches values; any
// other value is compared for equality.
func (l *leaf) parsePull(opts Options) error {
	d, ok := l.arg.(bson.D)
	if !ok {
		return nil
	}
	qo := query.ParseOptions{Expr: opts.ExprCompiler}
	if len(d) > 0 && strings.HasPrefix(d[0].Key, "$") && d[0].Key != "$and" && d[0].Key != "$or" && d[0].Key != "$nor" && d[0].Key != "$expr" {
		f, err := query.ParseFilterWith(bson.D{{Key: "v", Value: d}}, qo)
		if err != nil {
			return err
		}
		l.pullValue = f
		return nil
	}
	f, err := query.ParseFilterWith(d, qo)
	if err != nil {
		return err
	}
	l.pullFilter = f
	return nil
}

// pullMatches reports whether $pull removes element e.
func (l *leaf) pullMatches(e any) bool {
	switch {
	case l.pullValue != nil:
		return l.pullValue.Match(bson.D{{Key: "v", Value: e}})
	case l.pullFilter != nil:
		d, ok := e.(bson.D)
		if !ok {
			return false
		}
		return l.pullFilter.Match(d)
	}
	return query.Equal(e, l.arg)
}

// sortElements sorts an array for $push's $sort: whole elements for 1/-1,
// or by fields of element documents with MongoDB's sort keys (query.Sort).
func (l *leaf) sortElements(a bson.A) {
	switch s := l.sortSpec.(type) {
	case int:
		sort.SliceStable(a, func(i, j int) bool { return query.Compare(a[i], a[j])*s < 0 })
	case *query.Sort:
		keys := make([][]any, len(a))
		for i, e := range a {
			d, ok := e.(bson.D)
			if !ok {
				d = bson.D{}
			}
			keys[i] = s.KeyOf(d)
		}
		idx := make([]int, len(a))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return s.CompareKeys(keys[idx[i]], keys[idx[j]]) < 0 })
		sorted := make(bson.A, len(a))
		for i, k := range idx {
			sorted[i] = a[k]
		}
		copy(a, sorted)
	}
}
