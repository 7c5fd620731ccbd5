package query

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// maxTreeDepth is MongoDB's limit on nested logical operators and
// $elemMatch (internalQueryMaxSubtreeDepth... kMaxSubtreeDepth).
const maxTreeDepth = 100

type level int

const (
	levelTop level = iota // the predicate's own top level
	levelDoc              // inside $and/$or/$nor: still the user's document
	levelSub              // inside $elemMatch: array elements
)

type parser struct {
	opts ParseOptions
}

func badValue(format string, args ...any) error {
	return mongoerr.Newf(mongoerr.BadValue, format, args...)
}

func itoa(i int) string { return strconv.Itoa(i) }

// parseDoc parses a filter document into a node (an AND of its clauses).
func (p *parser) parseDoc(d bson.D, lvl level, depth int) (node, error) {
	if depth > maxTreeDepth {
		return nil, badValue("exceeded maximum query tree depth of %d", maxTreeDepth)
	}
	var children []node
	for _, e := range d {
		if strings.HasPrefix(e.Key, "$") {
			n, err := p.parseTopOperator(e, lvl, depth)
			if err != nil {
				return nil, err
			}
			if n != nil {
				children = append(children, n)
			}
			continue
		}
		nodes, err := p.parseField(e.Key, e.Value, depth)
		if err != nil {
			return nil, err
		}
		children = append(children, nodes...)
	}
	if len(children) == 1 {
		return children[0], nil
	}
	return &andNode{children: children}, nil
}

func (p *parser) parseTopOperator(e bson.E, lvl level, depth int) (node, error) {
	switch e.Key {
	case "$and", "$or", "$nor":
		children, err := p.parseTree(e, depth)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "$and":
			return &andNode{children: children}, nil
		case "$or":
			return &orNode{children: children}, nil
		}
		return &norNode{children: children}, nil
	case "$comment":
		return nil, nil
	case "$expr":
		if lvl == levelSub {
			return nil, badValue("$expr can only be applied to the top-level document")
		}
		if p.opts.Expr == nil {
			return nil, mongoerr.New(mongoerr.QueryFeatureNotAllowed, "$expr is not allowed in this context")
		}
		fn, err := p.opts.Expr(e.Value)
		if err != nil {
			return nil, err
		}
		return &exprNode{fn: fn, spec: e.Value}, nil
	case "$jsonSchema":
		if lvl == levelSub {
			return nil, badValue("$jsonSchema can only be applied to the top-level document")
		}
		d, ok := AsDocument(e.Value)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema must be an object")
		}
		return parseJSONSchema(d)
	case "$alwaysTrue", "$alwaysFalse":
		if n, ok := coerceInt64(e.Value); !ok || !IsNumber(e.Value) || n != 1 || !isIntegral(e.Value) {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "%s must be an integer value of 1", e.Key)
		}
		return &constNode{value: e.Key == "$alwaysTrue"}, nil
	case "$where":
		return nil, mongoerr.New(mongoerr.NotImplemented, "$where is not supported")
	case "$text":
		if lvl == levelSub {
			return nil, badValue("$text can only be applied to the top-level document")
		}
		return nil, mongoerr.New(mongoerr.IndexNotFound, "text index required for $text query")
	case "$not":
		return nil, badValue("unknown top level operator: $not. If you are trying to negate an entire expression, use $nor.")
	}
	return nil, badValue("unknown top level operator: %s. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.", e.Key)
}

func isIntegral(v any) bool {
	n, ok := toNumber(v)
	if !ok {
		return false
	}
	switch n.kind {
	case 'i', 'u':
		return true
	case 'f':
		return n.f == float64(int64(n.f))
	}
	r := decimalRat(n.d)
	return !n.d.IsNaN() && n.d.IsInf() == 0 && r.IsInt()
}

func (p *parser) parseTree(e bson.E, depth int) ([]node, error) {
	arr, ok := AsArray(e.Value)
	if !ok {
		return nil, badValue("%s must be an array", e.Key)
	}
	if len(arr) == 0 {
		return nil, badValue("$and/$or/$nor must be a nonempty array")
	}
	children := make([]node, 0, len(arr))
	for _, v := range arr {
		d, ok := AsDocument(v)
		if !ok {
			return nil, badValue("$or/$and/$nor entries need to be full objects")
		}
		n, err := p.parseDoc(d, levelDoc, depth+1)
		if err != nil {
			return nil, err
		}
		children = append(children, n)
	}
	return children, nil
}

// isOperatorDoc reports whether v is a document of operators ({$gt: 1}):
// non-empty, its first field starts with '$', and it is not a DBRef ({$ref,
// $id}, or with allowIncompleteDBRef any of $ref, $id, $db).
func isOperatorDoc(v any, allowIncompleteDBRef bool) (bson.D, bool) {
	d, ok := AsDocument(v)
	if !ok || len(d) == 0 || !strings.HasPrefix(d[0].Key, "$") {
		return nil, false
	}
	var hasRef, hasID, hasDB bool
	for _, e := range d {
		switch e.Key {
		case "$ref":
			hasRef = true
		case "$id":
			hasID = true
		case "$db":
			hasDB = true
		}
	}
	if allowIncompleteDBRef {
		if hasRef || hasID || hasDB {
			return nil, false
		}
	} else if hasRef && hasID {
		return nil, false
	}
	return d, true
}

// parseField parses {path: value}: an operator document, a regex, or
// equality.
func (p *parser) parseField(path string, v any, depth int) ([]node, error) {
	if ops, ok := isOperatorDoc(v, false); ok {
		exprs, err := p.parseOps(path, ops, depth)
		if err != nil {
			return nil, err
		}
		nodes := make([]node, 0, len(exprs))
		for _, x := range exprs {
			nodes = append(nodes, x.node(path))
		}
		return nodes, nil
	}
	if r, ok := v.(bson.Regex); ok {
		rp, err := newRegexPred(r.Pattern, r.Options)
		if err != nil {
			return nil, err
		}
		x := opExpr{pred: rp, name: "$regex", arg: r}
		return []node{x.node(path)}, nil
	}
	if _, ok := v.(bson.Undefined); ok {
		return nil, badValue("cannot compare to undefined")
	}
	x := opExpr{pred: &cmpPred{op: opEQ, rhs: v}, name: "$eq", arg: v, implicit: true}
	return []node{x.node(path)}, nil
}

// opExpr is one parsed operator of a field's operator document. It becomes a
// node (for a path in a document) or a predicate (inside $elemMatch).
type opExpr struct {
	pred     predicate
	leaf     LeafArrays
	negate   bool     // NOT(pred): $ne, $nin, {$exists: false}
	not      []opExpr // $not: NOT of the AND of these
	and      []opExpr // $all: AND of these
	name     string   // operator name, for validation error details
	arg      any      // operator argument, for validation error details
	implicit bool     // {path: value} equality without $eq
}

func (x opExpr) node(path string) node {
	switch {
	case x.not != nil:
		return &notNode{child: andOf(x.not, path)}
	case x.and != nil:
		if len(x.and) == 0 {
			return &constNode{value: false}
		}
		return andOf(x.and, path)
	}
	n := &pathNode{path: path, parts: SplitPath(path), leaf: x.leaf, pred: x.pred, op: x.name, arg: x.arg, implicit: x.implicit}
	if x.negate {
		return &notNode{child: n}
	}
	return n
}

func andOf(xs []opExpr, path string) node {
	if len(xs) == 1 {
		return xs[0].node(path)
	}
	children := make([]node, len(xs))
	for i, x := range xs {
		children[i] = x.node(path)
	}
	return &andNode{children: children}
}

func (x opExpr) valuePred() predicate {
	switch {
	case x.not != nil:
		return &notPred{preds: valuePreds(x.not)}
	case x.and != nil:
		if len(x.and) == 0 {
			return constPred{value: false}
		}
		return &andPred{preds: valuePreds(x.and)}
	case x.negate:
		return &notPred{preds: []predicate{x.pred}}
	}
	return x.pred
}

func valuePreds(xs []opExpr) []predicate {
	out := make([]predicate, len(xs))
	for i, x := range xs {
		out[i] = x.valuePred()
	}
	return out
}

// parseOps parses an operator document such as {$gt: 1, $lt: 5}.
func (p *parser) parseOps(path string, ops bson.D, depth int) ([]opExpr, error) {
	var out []opExpr
	for _, e := range ops {
		x, skip, err := p.parseOp(path, e, ops, depth)
		if err != nil {
			return nil, err
		}
		if !skip {
			out = append(out, x)
		}
	}
	return out, nil
}

func (p *parser) parseOp(path string, e bson.E, ops bson.D, depth int) (opExpr, bool, error) {
	arg := e.Value
	switch e.Key {
	case "$eq", "$lt", "$lte", "$gt", "$gte":
		op := map[string]cmpOp{"$eq": opEQ, "$lt": opLT, "$lte": opLTE, "$gt": opGT, "$gte": opGTE}[e.Key]
		if _, ok := arg.(bson.Regex); ok && op != opEQ {
			return opExpr{}, false, badValue("Can't have RegEx as arg to predicate over field '%s'.", path)
		}
		if _, ok := arg.(bson.Undefined); ok {
			return opExpr{}, false, badValue("cannot compare to undefined")
		}
		return opExpr{pred: &cmpPred{op: op, rhs: arg}, name: e.Key, arg: arg}, false, nil
	case "$ne":
		if _, ok := arg.(bson.Regex); ok {
			return opExpr{}, false, badValue("Can't have regex as arg to $ne.")
		}
		if _, ok := arg.(bson.Undefined); ok {
			return opExpr{}, false, badValue("cannot compare to undefined")
		}
		return opExpr{pred: &cmpPred{op: opEQ, rhs: arg}, negate: true, name: e.Key, arg: arg}, false, nil
	case "$in", "$nin":
		in, err := parseIn(e.Key, arg)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: in, negate: e.Key == "$nin", name: e.Key, arg: arg}, false, nil
	case "$exists":
		return opExpr{pred: existsPred{}, negate: !Truthy(arg), name: e.Key, arg: arg}, false, nil
	case "$type":
		tp, err := parseTypeSet(arg)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: tp, name: e.Key, arg: arg}, false, nil
	case "$regex":
		rp, err := parseRegexOps(ops)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: rp, name: e.Key, arg: bson.Regex{Pattern: rp.pattern, Options: rp.options}}, false, nil
	case "$options":
		if _, ok := Field(ops, "$regex"); !ok {
			return opExpr{}, false, badValue("$options needs a $regex")
		}
		return opExpr{}, true, nil
	case "$mod":
		mp, err := parseMod(arg)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: mp, name: e.Key, arg: arg}, false, nil
	case "$size":
		n, err := parseSize(arg)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: &sizePred{n: n}, leaf: WholeLeafArrays, name: e.Key, arg: arg}, false, nil
	case "$all":
		x, err := p.parseAll(path, arg, depth)
		return x, false, err
	case "$elemMatch":
		x, err := p.parseElemMatch(arg, depth)
		return x, false, err
	case "$not":
		x, err := p.parseNot(path, arg, depth)
		return x, false, err
	case "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear":
		bp, err := parseBits(path, e.Key, arg)
		if err != nil {
			return opExpr{}, false, err
		}
		return opExpr{pred: bp, name: e.Key, arg: arg}, false, nil
	case "$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within", "$geoNear":
		return opExpr{}, false, mongoerr.Newf(mongoerr.NotImplemented, "%s is not supported", e.Key)
	case "$comment":
		// MongoDB accepts $comment only at the top level.
	}
	return opExpr{}, false, badValue("unknown operator: %s", e.Key)
}

func parseIn(name string, arg any) (*inPred, error) {
	arr, ok := AsArray(arg)
	if !ok {
		return nil, badValue("%s needs an array", name)
	}
	in := &inPred{}
	for _, v := range arr {
		if _, ok := isOperatorDoc(v, false); ok {
			return nil, badValue("cannot nest $ under $in")
		}
		switch x := v.(type) {
		case bson.Regex:
			rp, err := newRegexPred(x.Pattern, x.Options)
			if err != nil {
				return nil, err
			}
			in.regexes = append(in.regexes, rp)
			continue
		case bson.Undefined:
			return nil, badValue("InMatchExpression equality cannot be undefined")
		case nil, bson.Null:
			in.hasNull = true
		}
		in.values = append(in.values, v)
	}
	return in, nil
}

func parseRegexOps(ops bson.D) (*regexPred, error) {
	var pattern, options string
	var regexOptions string
	for _, e := range ops {
		switch e.Key {
		case "$regex":
			switch x := e.Value.(type) {
			case string:
				pattern = x
			case bson.Regex:
				pattern = x.Pattern
				regexOptions = x.Options
			default:
				return nil, badValue("$regex has to be a string")
			}
		case "$options":
			s, ok := e.Value.(string)
			if !ok {
				return nil, badValue("$options has to be a string")
			}
			options = s
		}
	}
	if regexOptions != "" {
		if options != "" {
			return nil, mongoerr.New(mongoerr.Location51075, "options set in both $regex and $options")
		}
		options = regexOptions
	}
	return newRegexPred(pattern, options)
}

func parseMod(arg any) (*modPred, error) {
	arr, ok := AsArray(arg)
	if !ok {
		return nil, badValue("malformed mod, needs to be an array")
	}
	if len(arr) < 1 {
		return nil, badValue("malformed mod, not enough elements")
	}
	if !IsNumber(arr[0]) {
		return nil, badValue("malformed mod, divisor not a number")
	}
	if len(arr) < 2 {
		return nil, badValue("malformed mod, not enough elements")
	}
	if !IsNumber(arr[1]) {
		return nil, badValue("malformed mod, remainder not a number")
	}
	if len(arr) > 2 {
		return nil, badValue("malformed mod, too many elements")
	}
	d, why := coerceForMod(arr[0])
	if why != "" {
		return nil, badValue("malformed mod, divisor value is invalid :: caused by :: %s", why)
	}
	r, why := coerceForMod(arr[1])
	if why != "" {
		return nil, badValue("malformed mod, remainder value is invalid :: caused by :: %s", why)
	}
	if d == 0 {
		return nil, badValue("divisor cannot be 0")
	}
	return &modPred{divisor: d, remainder: r}, nil
}

// coerceForMod truncates a $mod argument to int64, or says why it cannot
// (MongoDB's tryCoerce reasons).
func coerceForMod(v any) (int64, string) {
	if n, ok := coerceInt64(v); ok {
		return n, ""
	}
	if isNaN(v) || isInf(v) {
		return 0, "Unable to coerce NaN/Inf to integral type"
	}
	return 0, "Out of bounds coercing to integral value"
}

func isInf(v any) bool {
	n, ok := toNumber(v)
	if !ok {
		return false
	}
	switch n.kind {
	case 'f':
		return isInfFloat(n.f)
	case 'd':
		return n.d.IsInf() != 0
	}
	return false
}

func parseSize(arg any) (int, error) {
	var size int64
	switch x := arg.(type) {
	case string:
		size = 0 // MongoDB's old odd semantics: a string means 0
	case int32:
		size = int64(x)
	case int, int8, int16:
		n, _ := coerceInt64(x)
		size = n
	case int64:
		if x != int64(int32(x)) {
			return 0, badValue("$size must be representable as a 32-bit integer")
		}
		size = x
	case float64:
		if x != float64(int32(x)) {
			return 0, badValue("$size must be a whole number")
		}
		size = int64(int32(x))
	default:
		return 0, badValue("$size needs a number")
	}
	if size < 0 {
		return 0, badValue("$size may not be negative")
	}
	return int(size), nil
}

func (p *parser) parseAll(path string, arg any, depth int) (opExpr, error) {
	arr, ok := AsArray(arg)
	if !ok {
		return opExpr{}, badValue("$all needs an array")
	}
	x := opExpr{and: []opExpr{}, name: "$all", arg: arg}
	if len(arr) > 0 {
		if first, ok := AsDocument(arr[0]); ok && len(first) > 0 && first[0].Key == "$elemMatch" {
			for _, v := range arr {
				d, ok := AsDocument(v)
				if !ok || len(d) == 0 || d[0].Key != "$elemMatch" {
					return opExpr{}, badValue("$all/$elemMatch has to be consistent")
				}
				em, err := p.parseElemMatch(d[0].Value, depth)
				if err != nil {
					return opExpr{}, err
				}
				x.and = append(x.and, em)
			}
			return x, nil
		}
	}
	for _, v := range arr {
		if r, ok := v.(bson.Regex); ok {
			rp, err := newRegexPred(r.Pattern, r.Options)
			if err != nil {
				return opExpr{}, err
			}
			x.and = append(x.and, opExpr{pred: rp, name: "$regex", arg: r})
			continue
		}
		if d, ok := AsDocument(v); ok && len(d) > 0 && isPathOperator(d[0].Key) {
			return opExpr{}, badValue("no $ expressions in $all")
		}
		x.and = append(x.and, opExpr{pred: &cmpPred{op: opEQ, rhs: v}, name: "$eq", arg: v})
	}
	return x, nil
}

// isPathOperator reports whether name is an operator that applies to a path
// (MongoDB's parsePathAcceptingKeyword).
func isPathOperator(name string) bool {
	switch name {
	case "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$nin", "$exists", "$type",
		"$regex", "$options", "$mod", "$size", "$all", "$elemMatch", "$not",
		"$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear",
		"$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within", "$geoNear",
		"$maxDistance", "$minDistance":
		return true
	}
	return false
}

// isPathlessOperator reports whether name is a top-level operator.
func isPathlessOperator(name string) bool {
	switch name {
	case "$and", "$or", "$nor", "$comment", "$expr", "$jsonSchema", "$where", "$text",
		"$alwaysTrue", "$alwaysFalse", "$sampleRate", "$atomic", "$isolated":
		return true
	}
	return false
}

func (p *parser) parseElemMatch(arg any, depth int) (opExpr, error) {
	d, ok := AsDocument(arg)
	if !ok {
		return opExpr{}, badValue("$elemMatch needs an Object")
	}
	if depth+1 > maxTreeDepth {
		return opExpr{}, badValue("exceeded maximum query tree depth of %d", maxTreeDepth)
	}
	if ops, ok := isOperatorDoc(d, true); ok && !isPathlessOperator(ops[0].Key) {
		exprs, err := p.parseOps("", ops, depth+1)
		if err != nil {
			return opExpr{}, err
		}
		return opExpr{pred: &elemMatchValuePred{preds: valuePreds(exprs)}, leaf: WholeLeafArrays, name: "$elemMatch", arg: arg}, nil
	}
	sub, err := p.parseDoc(d, levelSub, depth+1)
	if err != nil {
		return opExpr{}, err
	}
	return opExpr{pred: &elemMatchObjectPred{sub: sub}, leaf: WholeLeafArrays, name: "$elemMatch", arg: arg}, nil
}

func (p *parser) parseNot(path string, arg any, depth int) (opExpr, error) {
	if r, ok := arg.(bson.Regex); ok {
		rp, err := newRegexPred(r.Pattern, r.Options)
		if err != nil {
			return opExpr{}, err
		}
		return opExpr{not: []opExpr{{pred: rp, name: "$regex", arg: r}}, name: "$not", arg: arg}, nil
	}
	d, ok := AsDocument(arg)
	if !ok {
		return opExpr{}, badValue("$not needs a regex or a document")
	}
	if len(d) == 0 {
		return opExpr{}, badValue("$not cannot be empty")
	}
	if depth+1 > maxTreeDepth {
		return opExpr{}, badValue("exceeded maximum query tree depth of %d", maxTreeDepth)
	}
	exprs, err := p.parseOps(path, d, depth+1)
	if err != nil {
		return opExpr{}, err
	}
	if len(exprs) == 0 {
		// Only $options (already validated) or similar: NOT of an empty AND.
		return opExpr{pred: constPred{value: false}, name: "$not", arg: arg}, nil
	}
	return opExpr{not: exprs, name: "$not", arg: arg}, nil
}

// Truthy reports whether v counts as true the way MongoDB's trueValue does
// ({$exists: v}, $expr coercion): false, 0, NaN-free zero numbers, null,
// undefined and a missing value are false; everything else is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil, bson.Null, bson.Undefined:
		return false
	case bool:
		return x
	}
	if IsNumber(v) {
		return Compare(v, int32(0)) != 0
	}
	return true
}
