package query

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// ComputedField evaluates a computed projection value against the whole
// document; ok false means the value is missing and the field is left out.
type ComputedField func(doc bson.D) (v any, ok bool, err error)

// ProjectionOptions configures ParseProjectionWith.
type ProjectionOptions struct {
	// Expr compiles the value of a computed field (an aggregation
	// expression such as "$a.b" or {$add: [...]}). When nil, only literal
	// values without expression syntax are accepted as computed fields.
	Expr func(expr any) (ComputedField, error)
}

// Projection is a parsed find() projection. It is immutable and safe for
// concurrent use.
type Projection struct {
	root      *projNode
	inclusion bool
	empty     bool
	// positional holds the path before ".$" of a positional projection.
	positional []string
}

type projKind int

const (
	projInclude projKind = iota
	projExclude
	projSub
	projSlice
	projElemMatch
	projPositional
	projComputed
)

type projNode struct {
	children []*projChild
}

type projChild struct {
	name      string
	kind      projKind
	sub       *projNode
	skip      *int64 // $slice [skip, limit]; nil for $slice: n
	limit     int64
	elemMatch *Filter
	compute   ComputedField
}

func (n *projNode) child(name string) *projChild {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

type projParser struct {
	opts          ProjectionOptions
	kind          int // 0 unknown, 1 inclusion, 2 exclusion
	idSpecified   bool
	idIncluded    bool
	idExcluded    bool
	hasPositional bool
	hasElemMatch  bool
	hasSlice      bool
	positional    []string
}

const (
	projUnknown = iota
	projInclusion
	projExclusion
)

// ParseProjection parses a find() projection with MongoDB 4.4+ rules:
// inclusion ({a: 1}) or exclusion ({a: 0}) but not both (only _id may be
// excluded from an inclusion, or included in an exclusion); _id included
// unless excluded; dotted paths and nested sub-projections ({a: {b: 1}});
// $slice (n or [skip, limit]); $elemMatch on top-level fields; the
// positional "a.$"; literal computed fields. Expression values need
// ParseProjectionWith; $meta is refused.
func ParseProjection(spec bson.D) (*Projection, error) {
	return ParseProjectionWith(spec, ProjectionOptions{})
}

// ParseProjectionWith parses a projection with the given options.
func ParseProjectionWith(spec bson.D, opts ProjectionOptions) (*Projection, error) {
	p := &projParser{opts: opts}
	root := &projNode{}
	for _, e := range spec {
		if e.Key == "_id" || strings.HasPrefix(e.Key, "_id.") {
			p.idSpecified = true
		}
		if err := p.parseElement(e, root, nil); err != nil {
			return nil, err
		}
	}
	if p.kind == projUnknown {
		switch {
		case p.hasSlice:
			p.kind = projExclusion
			if p.idIncluded {
				p.kind = projInclusion
			}
		case p.hasElemMatch, p.idIncluded:
			p.kind = projInclusion
		default:
			p.kind = projExclusion
		}
	}
	if !p.idSpecified && p.kind == projInclusion {
		root.children = append(root.children, &projChild{name: "_id", kind: projInclude})
	}
	if p.kind == projExclusion && p.idIncluded {
		for i, c := range root.children {
			if c.name == "_id" && c.kind == projInclude {
				root.children = append(root.children[:i], root.children[i+1:]...)
				break
			}
		}
	}
	return &Projection{
		root:       root,
		inclusion:  p.kind == projInclusion,
		empty:      len(spec) == 0,
		positional: p.positional,
	}, nil
}

// Inclusion reports whether the projection lists the fields to keep (rather
// than those to drop).
func (pr *Projection) Inclusion() bool { return pr.inclusion }

func validateFieldPath(path string) error {
	if path == "" {
		return mongoerr.New(mongoerr.Location40352, "FieldPath cannot be constructed with empty string")
	}
	for _, part := range strings.Split(path, ".") {
		if part == "" {
			return mongoerr.New(mongoerr.Location15998, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(part, "$") {
			return mongoerr.New(mongoerr.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return nil
}

func isInclusionOrExclusionValue(v any) bool {
	switch v.(type) {
	case bool, int32, int64, float64, bson.Decimal128, int, float32:
		return true
	}
	return false
}

func (p *projParser) parseElement(e bson.E, parent *projNode, prefix []string) error {
	atRoot := len(prefix) == 0
	positional := strings.HasSuffix(e.Key, ".$")
	if strings.Contains(e.Key, ".$.") {
		return mongoerr.New(mongoerr.Location31394, "As of 4.4, it's illegal to specify positional operator in the middle of a path.Positional projection may only be used at the end, for example: a.b.$. If the query previously used a form like a.b.$.d, remove the parts following the '$' and the results will be equivalent.")
	}
	if sub, ok := AsDocument(e.Value); ok {
		if positional {
			return mongoerr.New(mongoerr.Location31271, "positional projection cannot be used with an expression or sub object")
		}
		return p.parseSubObject(e.Key, sub, parent, prefix)
	}
	if isInclusionOrExclusionValue(e.Value) {
		if Truthy(e.Value) {
			return p.parseInclusion(e.Key, parent, prefix, positional)
		}
		if positional {
			return mongoerr.New(mongoerr.Location31395, "positional projection cannot be used with exclusion")
		}
		return p.parseExclusion(e.Key, parent, atRoot)
	}
	if positional {
		return mongoerr.New(mongoerr.Location31308, "positional projection cannot be used with a literal")
	}
	return p.parseLiteral(e, parent)
}

func (p *projParser) parseInclusion(key string, parent *projNode, prefix []string, positional bool) error {
	isID := key == "_id" && len(prefix) == 0
	if !positional {
		if err := validateFieldPath(key); err != nil {
			return err
		}
		if err := addProjNode(parent, key, &projChild{kind: projInclude}); err != nil {
			return err
		}
		if isID {
			p.idIncluded = true
		}
	} else {
		if p.hasPositional {
			return mongoerr.New(mongoerr.Location31276, "Cannot specify more than one positional projection per query.")
		}
		if p.hasElemMatch {
			return mongoerr.New(mongoerr.Location31256, "Cannot specify positional operator and $elemMatch.")
		}
		if key == ".$" {
			return mongoerr.Newf(mongoerr.Location5392900, "Projection on field %s is invalid", key)
		}
		path := strings.TrimSuffix(key, ".$")
		if err := validateFieldPath(path); err != nil {
			return err
		}
		if err := addProjNode(parent, path, &projChild{kind: projPositional}); err != nil {
			return err
		}
		p.hasPositional = true
		p.positional = append(append([]string{}, prefix...), SplitPath(path)...)
	}
	if !isID {
		if p.kind == projExclusion {
			return mongoerr.Newf(mongoerr.Location31253, "Cannot do inclusion on field %s in exclusion projection", key)
		}
		p.kind = projInclusion
	}
	return nil
}

func (p *projParser) parseExclusion(key string, parent *projNode, atRoot bool) error {
	if err := validateFieldPath(key); err != nil {
		return err
	}
	if err := addProjNode(parent, key, &projChild{kind: projExclude}); err != nil {
		return err
	}
	if key == "_id" && atRoot {
		p.idExcluded = true
		return nil
	}
	if p.kind == projInclusion {
		return mongoerr.Newf(mongoerr.Location31254, "Cannot do exclusion on field %s in inclusion projection", key)
	}
	p.kind = projExclusion
	return nil
}

func (p *projParser) parseLiteral(e bson.E, parent *projNode) error {
	if err := validateFieldPath(e.Key); err != nil {
		return err
	}
	fn, err := p.compile(e.Value)
	if err != nil {
		return err
	}
	if err := addProjNode(parent, e.Key, &projChild{kind: projComputed, compute: fn}); err != nil {
		return err
	}
	if p.kind == projExclusion {
		return mongoerr.Newf(mongoerr.Location31310, "Cannot use an expression %s in an exclusion projection", elemString(e.Key, e.Value))
	}
	p.kind = projInclusion
	return nil
}

func (p *projParser) compile(v any) (ComputedField, error) {
	if p.opts.Expr != nil {
		return p.opts.Expr(v)
	}
	if !isPlainLiteral(v) {
		return nil, mongoerr.New(mongoerr.NotImplemented, "projection expressions are not supported in this context")
	}
	return func(bson.D) (any, bool, error) { return v, true, nil }, nil
}

// isPlainLiteral reports whether v evaluates to itself as an aggregation
// expression: no "$" field paths and no operator documents.
func isPlainLiteral(v any) bool {
	switch x := v.(type) {
	case string:
		return !strings.HasPrefix(x, "$")
	}
	if a, ok := AsArray(v); ok {
		for _, e := range a {
			if !isPlainLiteral(e) {
				return false
			}
		}
		return true
	}
	if d, ok := AsDocument(v); ok {
		for _, e := range d {
			if strings.HasPrefix(e.Key, "$") || !isPlainLiteral(e.Value) {
				return false
			}
		}
	}
	return true
}

func (p *projParser) parseSubObject(key string, obj bson.D, parent *projNode, prefix []string) error {
	if len(obj) == 0 {
		return mongoerr.Newf(mongoerr.Location51270, "Invalid empty sub-projection: %s", key)
	}
	if err := validateFieldPath(key); err != nil {
		return err
	}
	if len(obj) == 1 && strings.HasPrefix(obj[0].Key, "$") {
		op := obj[0]
		switch op.Key {
		case "$slice":
			return p.parseSlice(key, op.Value, parent)
		case "$elemMatch":
			d, ok := AsDocument(op.Value)
			if !ok {
				return mongoerr.Newf(mongoerr.Location31274, "elemMatch: Invalid argument, object required, but got %s", TypeName(op.Value))
			}
			if p.hasPositional {
				return mongoerr.New(mongoerr.Location31255, "Cannot specify positional operator and $elemMatch.")
			}
			if strings.Contains(key, ".") || len(prefix) > 0 {
				return mongoerr.New(mongoerr.Location31275, "Cannot use $elemMatch projection on a nested field.")
			}
			f, err := ParseFilter(bson.D{{Key: key, Value: bson.D{{Key: "$elemMatch", Value: d}}}})
			if err != nil {
				return err
			}
			if err := addProjNode(parent, key, &projChild{kind: projElemMatch, elemMatch: f}); err != nil {
				return err
			}
			p.hasElemMatch = true
			return nil
		case "$meta":
			return mongoerr.New(mongoerr.NotImplemented, "$meta is not supported")
		}
		if p.opts.Expr != nil {
			if p.kind == projExclusion {
				return mongoerr.New(mongoerr.Location31252, "Cannot use expression other than $meta in exclusion projection")
			}
			fn, err := p.opts.Expr(obj)
			if err != nil {
				return err
			}
			if err := addProjNode(parent, key, &projChild{kind: projComputed, compute: fn}); err != nil {
				return err
			}
			p.kind = projInclusion
			return nil
		}
		return mongoerr.Newf(mongoerr.Location31325, "Unknown expression %s", op.Key)
	}
	node := findInnerNode(parent, SplitPath(key))
	if node == nil {
		node = &projNode{}
		if err := addProjNode(parent, key, &projChild{kind: projSub, sub: node}); err != nil {
			return err
		}
	}
	sub := append(append([]string{}, prefix...), SplitPath(key)...)
	for _, e := range obj {
		if err := p.parseElement(e, node, sub); err != nil {
			return err
		}
	}
	return nil
}

func (p *projParser) parseSlice(key string, arg any, parent *projNode) error {
	c := &projChild{kind: projSlice}
	switch {
	case IsNumber(arg):
		c.limit = safeNumberInt(arg)
	case TypeOf(arg) == bson.TypeArray:
		arr, _ := AsArray(arg)
		if len(arr) != 2 {
			return mongoerr.New(mongoerr.Location31272, "$slice array argument should be of form [skip, limit]")
		}
		if !IsNumber(arr[0]) {
			return mongoerr.Newf(mongoerr.Location31257, "$slice expects the skip argument to be a number, got %s", TypeName(arr[0]))
		}
		if !IsNumber(arr[1]) {
			return mongoerr.Newf(mongoerr.Location31258, "$slice expects the limit argument to be a number, got %s", TypeName(arr[1]))
		}
		limit := safeNumberInt(arr[1])
		if limit <= 0 {
			return mongoerr.Newf(mongoerr.Location31259, "$slice limit must be positive, got %d", limit)
		}
		skip := safeNumberInt(arr[0])
		c.skip, c.limit = &skip, limit
	default:
		return mongoerr.New(mongoerr.Location31273, "$slice only supports numbers and [skip, limit] arrays")
	}
	if err := addProjNode(parent, key, c); err != nil {
		return err
	}
	p.hasSlice = true
	return nil
}

// safeNumberInt converts a number to int32 range the way MongoDB's
// safeNumberInt does: truncating, clamping out-of-range values, NaN to 0.
func safeNumberInt(v any) int64 {
	n, ok := toNumber(v)
	if !ok {
		return 0
	}
	var f float64
	switch n.kind {
	case 'i':
		return clamp32(n.i)
	case 'u':
		return math.MaxInt32
	case 'f':
		f = n.f
	default:
		if n.d.IsNaN() {
			return 0
		}
		if inf := n.d.IsInf(); inf != 0 {
			f = math.Inf(inf)
		} else {
			f, _ = decimalRat(n.d).Float64()
		}
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

func clamp32(i int64) int64 {
	switch {
	case i > math.MaxInt32:
		return math.MaxInt32
	case i < math.MinInt32:
		return math.MinInt32
	}
	return i
}

// addProjNode adds a child at a dotted path below root, creating inner
// nodes, with MongoDB's path collision errors.
func addProjNode(root *projNode, path string, leaf *projChild) error {
	parts := SplitPath(path)
	node := root
	for i, part := range parts {
		c := node.child(part)
		if i == len(parts)-1 {
			if c != nil {
				return mongoerr.Newf(mongoerr.Location31250, "Path collision at %s", path)
			}
			leaf.name = part
			node.children = append(node.children, leaf)
			return nil
		}
		if c == nil {
			c = &projChild{name: part, kind: projSub, sub: &projNode{}}
			node.children = append(node.children, c)
		} else if c.kind != projSub {
			return mongoerr.Newf(mongoerr.Location31249, "Path collision at %s remaining portion %s", path, strings.Join(parts[1:], "."))
		}
		node = c.sub
	}
	return nil
}

// findInnerNode returns the sub-projection node at parts, if there is one.
func findInnerNode(root *projNode, parts []string) *projNode {
	node := root
	for _, part := range parts {
		c := node.child(part)
		if c == nil || c.kind != projSub {
			return nil
		}
		node = c.sub
	}
	return node
}

// Apply projects doc. m is the result of matching doc against the query
// (Filter.Eval); it supplies the array index for a positional projection.
func (pr *Projection) Apply(doc bson.D, m MatchResult) (bson.D, error) {
	if pr.empty {
		return doc, nil
	}
	src := doc
	if pr.positional != nil {
		var err error
		src, err = applyPositional(doc, pr.positional, m.ArrayIndex)
		if err != nil {
			return nil, err
		}
	}
	if pr.inclusion {
		return pr.root.include(src, doc)
	}
	return pr.root.exclude(src), nil
}

func positionalError() error {
	return mongoerr.New(mongoerr.Location51246, "positional operator '.$' couldn't find a matching element in the array")
}

// applyPositional replaces the first array on path with the one element the
// query matched.
func applyPositional(d bson.D, parts []string, idx int) (bson.D, error) {
	v, ok := Field(d, parts[0])
	if !ok {
		return d, nil
	}
	var repl any
	if arr, isArr := AsArray(v); isArr {
		if idx < 0 || idx >= len(arr) {
			return nil, positionalError()
		}
		repl = bson.A{arr[idx]}
	} else if sub, isDoc := AsDocument(v); isDoc && len(parts) > 1 {
		inner, err := applyPositional(sub, parts[1:], idx)
		if err != nil {
			return nil, err
		}
		repl = inner
	} else {
		if idx < 0 {
			return nil, positionalError()
		}
		return d, nil
	}
	out := make(bson.D, len(d))
	copy(out, d)
	for i := range out {
		if out[i].Key == parts[0] {
			out[i].Value = repl
			break
		}
	}
	return out, nil
}

func (n *projNode) include(d bson.D, root bson.D) (bson.D, error) {
	out := bson.D{}
	for _, e := range d {
		c := n.child(e.Key)
		if c == nil {
			continue
		}
		switch c.kind {
		case projInclude, projPositional:
			out = append(out, e)
		case projSub:
			if v, ok, err := c.sub.includeValue(e.Value, root); err != nil {
				return nil, err
			} else if ok {
				out = append(out, bson.E{Key: e.Key, Value: v})
			}
		case projSlice:
			out = append(out, bson.E{Key: e.Key, Value: c.slice(e.Value)})
		}
	}
	for _, c := range n.children {
		switch c.kind {
		case projComputed:
			v, ok, err := c.compute(root)
			if err != nil {
				return nil, err
			}
			if ok {
				out = setField(out, c.name, v)
			}
		case projElemMatch:
			if v, ok := c.elemMatchValue(root); ok {
				out = setField(out, c.name, v)
			}
		case projSub:
			if _, present := Field(d, c.name); !present && c.sub.hasComputed() {
				sub, err := c.sub.include(bson.D{}, root)
				if err != nil {
					return nil, err
				}
				out = append(out, bson.E{Key: c.name, Value: sub})
			}
		}
	}
	return out, nil
}

func (n *projNode) hasComputed() bool {
	for _, c := range n.children {
		if c.kind == projComputed || (c.kind == projSub && c.sub.hasComputed()) {
			return true
		}
	}
	return false
}

// includeValue applies an inclusion sub-projection to a value: documents
// are projected, arrays element by element (nested arrays too, scalars
// dropped), and other values are dropped.
func (n *projNode) includeValue(v any, root bson.D) (any, bool, error) {
	if d, ok := AsDocument(v); ok {
		out, err := n.include(d, root)
		return out, true, err
	}
	if a, ok := AsArray(v); ok {
		out := bson.A{}
		for _, e := range a {
			pv, keep, err := n.includeValue(e, root)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out = append(out, pv)
			}
		}
		return out, true, nil
	}
	if n.hasComputed() {
		out, err := n.include(bson.D{}, root)
		return out, true, err
	}
	return nil, false, nil
}

func (n *projNode) exclude(d bson.D) bson.D {
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		c := n.child(e.Key)
		if c == nil {
			out = append(out, e)
			continue
		}
		switch c.kind {
		case projExclude:
		case projSub:
			out = append(out, bson.E{Key: e.Key, Value: c.sub.excludeValue(e.Value)})
		case projSlice:
			out = append(out, bson.E{Key: e.Key, Value: c.slice(e.Value)})
		default:
			out = append(out, e)
		}
	}
	return out
}

// excludeValue applies an exclusion sub-projection to a value: documents
// are projected, arrays element by element, other values kept.
func (n *projNode) excludeValue(v any) any {
	if d, ok := AsDocument(v); ok {
		return n.exclude(d)
	}
	if a, ok := AsArray(v); ok {
		out := make(bson.A, len(a))
		for i, e := range a {
			out[i] = n.excludeValue(e)
		}
		return out
	}
	return v
}

func (c *projChild) slice(v any) any {
	a, ok := AsArray(v)
	if !ok {
		return v
	}
	n := int64(len(a))
	var start, end int64
	if c.skip == nil {
		if c.limit >= 0 {
			start, end = 0, min(c.limit, n)
		} else {
			start, end = max(0, n+c.limit), n
		}
	} else {
		skip := *c.skip
		if skip >= 0 {
			start = min(skip, n)
		} else {
			start = max(0, n+skip)
		}
		end = min(start+c.limit, n)
	}
	out := make(bson.A, end-start)
	copy(out, a[start:end])
	return out
}

func (c *projChild) elemMatchValue(doc bson.D) (any, bool) {
	v, ok := Field(doc, c.name)
	if !ok {
		return nil, false
	}
	arr, ok := AsArray(v)
	if !ok {
		return nil, false
	}
	r, err := c.elemMatch.Eval(bson.D{{Key: c.name, Value: arr}})
	if err != nil || !r.Matched || r.ArrayIndex < 0 || r.ArrayIndex >= len(arr) {
		return nil, false
	}
	return bson.A{arr[r.ArrayIndex]}, true
}

func setField(d bson.D, name string, v any) bson.D {
	for i := range d {
		if d[i].Key == name {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: name, Value: v})
}
