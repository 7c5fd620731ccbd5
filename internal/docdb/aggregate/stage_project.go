package aggregate

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	stageParsers["$project"] = parseProject
	stageParsers["$addFields"] = func(arg any, opts Options) (stage, error) { return parseAddFields("$addFields", arg, opts) }
	stageParsers["$set"] = func(arg any, opts Options) (stage, error) { return parseAddFields("$set", arg, opts) }
	stageParsers["$unset"] = parseUnset
}

// projNode is one level of a projection tree.
type projNode struct {
	// children in spec order.
	order    []string
	children map[string]*projNode
	// leaf: include (true) / exclude, or a computed expression.
	leaf    bool
	include bool
	expr    evalFn
}

func newProjNode() *projNode { return &projNode{children: map[string]*projNode{}} }

// projection is a parsed $project, $unset or $addFields.
type projection struct {
	stageName string
	root      *projNode
	inclusion bool
	excludeID bool
	addFields bool
}

func (p *projection) name() string { return p.stageName }

func projErr(code mongoerr.Code, format string, args ...any) error {
	return mongoerr.Newf(code, "Invalid $project :: caused by :: "+format, args...)
}

// insertPath adds a leaf at a dotted path, detecting collisions.
func (p *projection) insertPath(path string, leaf *projNode) error {
	parts, err := splitPath(path)
	if err != nil {
		return err
	}
	cur := p.root
	for i, part := range parts {
		child, ok := cur.children[part]
		last := i == len(parts)-1
		if ok && (child.leaf || last) {
			return projErr(mongoerr.Location31250, "Path collision at %s", path)
		}
		if !ok {
			if last {
				child = leaf
			} else {
				child = newProjNode()
			}
			cur.children[part] = child
			cur.order = append(cur.order, part)
		}
		cur = child
	}
	return nil
}

// isInclusionValue reports whether v is a 1/true/0/false projection flag
// and which.
func projectionFlag(v any) (isFlag, include bool) {
	switch x := v.(type) {
	case bool:
		return true, x
	}
	if isNumber(v) {
		return true, truthy(v)
	}
	return false, false
}

func parseProject(arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location15969, "$project specification must be an object")
	}
	if len(d) == 0 {
		return nil, projErr(mongoerr.Location51272, "projection specification must have at least one field")
	}
	pp := &projectParser{p: &projection{stageName: "$project", root: newProjNode()}, c: newCompiler(opts.Vars)}
	if err := pp.walk("", d); err != nil {
		return nil, err
	}
	return pp.finish(), nil
}

// projectParser builds a $project stage field by field.
type projectParser struct {
	p    *projection
	c    *compiler
	mode int // 0 not yet known, 1 inclusion, -1 exclusion
}

// setMode records that path includes (or excludes) and refuses mixing
// inclusion and exclusion.
func (pp *projectParser) setMode(incl bool, path string) error {
	want := -1
	if incl {
		want = 1
	}
	if pp.mode == 0 {
		pp.mode = want
		return nil
	}
	if pp.mode != want {
		if incl {
			return projErr(mongoerr.Location31253, "Cannot do inclusion on field %s in exclusion projection", path)
		}
		return projErr(mongoerr.Location31254, "Cannot do exclusion on field %s in inclusion projection", path)
	}
	return nil
}

// walk adds the fields of the (sub-)projection d under prefix.
func (pp *projectParser) walk(prefix string, d bson.D) error {
	if len(d) == 0 {
		return projErr(mongoerr.Location51270, "An empty sub-projection is not a valid value. Found empty object at path")
	}
	for _, e := range d {
		path := e.Key
		if prefix != "" {
			path = prefix + "." + e.Key
		}
		if err := pp.field(path, e); err != nil {
			return err
		}
	}
	return nil
}

// field adds one field: an inclusion or exclusion flag, a sub-projection or
// a computed expression.
func (pp *projectParser) field(path string, e bson.E) error {
	if strings.HasPrefix(e.Key, "$") {
		return projErr(mongoerr.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	}
	if isFlag, incl := projectionFlag(e.Value); isFlag {
		return pp.flag(path, incl)
	}
	if sub, ok := asDoc(e.Value); ok && (len(sub) == 0 || !strings.HasPrefix(sub[0].Key, "$")) {
		return pp.walk(path, sub)
	}
	f, err := pp.c.compile(e.Value)
	if err != nil {
		return err
	}
	if err := pp.setMode(true, path); err != nil {
		if pp.mode == -1 {
			return projErr(mongoerr.Location31252, "Cannot use expression other than $meta in exclusion projection")
		}
		return err
	}
	return pp.p.insertPath(path, &projNode{leaf: true, expr: f})
}

// flag adds an inclusion or exclusion of path; _id's does not set the mode.
func (pp *projectParser) flag(path string, incl bool) error {
	if path == "_id" {
		pp.p.excludeID = !incl
		if incl {
			return pp.p.insertPath(path, &projNode{leaf: true, include: true})
		}
		return nil
	}
	if err := pp.setMode(incl, path); err != nil {
		return err
	}
	return pp.p.insertPath(path, &projNode{leaf: true, include: incl})
}

// finish settles the mode when only _id was named and places _id as the
// mode wants it.
func (pp *projectParser) finish() *projection {
	p := pp.p
	if pp.mode == 0 {
		// Only _id was named.
		if p.excludeID {
			pp.mode = -1
			p.root.children["_id"] = &projNode{leaf: true, include: false}
			p.root.order = append(p.root.order, "_id")
		} else {
			pp.mode = 1
		}
	}
	p.inclusion = pp.mode == 1
	if !p.inclusion && p.excludeID {
		if _, ok := p.root.children["_id"]; !ok {
			p.root.children["_id"] = &projNode{leaf: true, include: false}
			p.root.order = append(p.root.order, "_id")
		}
	}
	if p.inclusion && !p.excludeID {
		if _, ok := p.root.children["_id"]; !ok {
			p.root.children["_id"] = &projNode{leaf: true, include: true}
			p.root.order = append([]string{"_id"}, p.root.order...)
		}
	}
	return p
}

func parseUnset(arg any, _ Options) (stage, error) {
	var fields []string
	switch x := arg.(type) {
	case string:
		fields = []string{x}
	case bson.A:
		if len(x) == 0 {
			return nil, mongoerr.New(mongoerr.Location31119, "$unset specification must be a string or an array with at least one field")
		}
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, mongoerr.New(mongoerr.Location31120, "$unset specification must be a string or an array containing only string values")
			}
			fields = append(fields, s)
		}
	default:
		return nil, mongoerr.New(mongoerr.Location31002, "$unset specification must be a string or an array")
	}
	p := &projection{stageName: "$unset", root: newProjNode()}
	for _, f := range fields {
		if f == "" {
			return nil, mongoerr.New(mongoerr.Location40352, "Invalid $project :: caused by :: FieldPath cannot be constructed with empty string")
		}
		if err := p.insertPath(f, &projNode{leaf: true, include: false}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func parseAddFields(stageName string, arg any, opts Options) (stage, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40272, "%s specification stage must be an object, got %s", stageName, TypeName(arg))
	}
	p := &projection{stageName: stageName, root: newProjNode(), addFields: true, inclusion: true}
	c := newCompiler(opts.Vars)
	var walk func(prefix string, d bson.D) error
	walk = func(prefix string, d bson.D) error {
		for _, e := range d {
			path := e.Key
			if prefix != "" {
				path = prefix + "." + e.Key
			}
			if strings.HasPrefix(e.Key, "$") {
				return mongoerr.Newf(mongoerr.Location16410, "Invalid %s :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField.", stageName)
			}
			if sub, ok := asDoc(e.Value); ok && len(sub) > 0 && !strings.HasPrefix(sub[0].Key, "$") {
				if err := walk(path, sub); err != nil {
					return err
				}
				continue
			}
			f, err := c.compile(e.Value)
			if err != nil {
				return err
			}
			if err := p.insertPath(path, &projNode{leaf: true, expr: f}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("", d); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *projection) run(ctx context.Context, in Iterator, env *Env) (Iterator, error) {
	return mapIter(in, func(_ context.Context, d bson.D) (bson.D, bool, error) {
		out, err := p.Apply(env.Vars, d)
		return out, err == nil, err
	}), nil
}

// Apply applies the projection to one document.
func (p *projection) Apply(vars *Vars, d bson.D) (bson.D, error) {
	v := vars.WithRoot(d)
	switch {
	case p.addFields:
		return addFieldsDoc(p.root, v, d, d)
	case p.inclusion:
		return includeDoc(p.root, v, d, d)
	}
	return excludeDoc(p.root, d), nil
}

// includeDoc keeps the included fields in document order, then appends
// the computed fields in spec order.
func includeDoc(n *projNode, v *Vars, root, d bson.D) (bson.D, error) {
	out := bson.D{}
	for _, e := range d {
		child, ok := n.children[e.Key]
		if !ok || child.expr != nil {
			continue
		}
		if child.leaf {
			if child.include {
				out = append(out, e)
			}
			continue
		}
		switch x := e.Value.(type) {
		case bson.D:
			sub, err := includeDoc(child, v, root, x)
			if err != nil {
				return nil, err
			}
			out = append(out, bson.E{Key: e.Key, Value: sub})
		case bson.A:
			sub, err := includeArray(child, v, root, x)
			if err != nil {
				return nil, err
			}
			out = append(out, bson.E{Key: e.Key, Value: sub})
		}
	}
	for _, k := range n.order {
		child := n.children[k]
		if child.expr != nil {
			val, err := child.expr(v, root)
			if err != nil {
				return nil, err
			}
			if !IsMissing(val) {
				out = setField(out, k, val)
			}
			continue
		}
		if !child.leaf && hasComputed(child) {
			// A sub-projection with computed fields creates its document.
			cur, ok := lookupField(out, k)
			if !ok {
				sub, err := includeDoc(child, v, root, bson.D{})
				if err != nil {
					return nil, err
				}
				if len(sub) > 0 {
					out = append(out, bson.E{Key: k, Value: sub})
				}
				_ = cur
			}
		}
	}
	return out, nil
}

func hasComputed(n *projNode) bool {
	if n.expr != nil {
		return true
	}
	for _, c := range n.children {
		if hasComputed(c) {
			return true
		}
	}
	return false
}

func includeArray(n *projNode, v *Vars, root bson.D, a bson.A) (bson.A, error) {
	out := bson.A{}
	for _, e := range a {
		switch x := e.(type) {
		case bson.D:
			sub, err := includeDoc(n, v, root, x)
			if err != nil {
				return nil, err
			}
			out = append(out, sub)
		case bson.A:
			sub, err := includeArray(n, v, root, x)
			if err != nil {
				return nil, err
			}
			out = append(out, sub)
		default:
			if hasComputed(n) {
				sub, err := includeDoc(n, v, root, bson.D{})
				if err != nil {
					return nil, err
				}
				out = append(out, sub)
			}
		}
	}
	return out, nil
}

// excludeDoc removes the excluded fields.
func excludeDoc(n *projNode, d bson.D) bson.D {
	out := bson.D{}
	for _, e := range d {
		child, ok := n.children[e.Key]
		if !ok {
			out = append(out, e)
			continue
		}
		if child.leaf {
			if child.include {
				out = append(out, e)
			}
			continue
		}
		switch x := e.Value.(type) {
		case bson.D:
			out = append(out, bson.E{Key: e.Key, Value: excludeDoc(child, x)})
		case bson.A:
			out = append(out, bson.E{Key: e.Key, Value: excludeArray(child, x)})
		default:
			out = append(out, e)
		}
	}
	return out
}

func excludeArray(n *projNode, a bson.A) bson.A {
	out := make(bson.A, 0, len(a))
	for _, e := range a {
		switch x := e.(type) {
		case bson.D:
			out = append(out, excludeDoc(n, x))
		case bson.A:
			out = append(out, excludeArray(n, x))
		default:
			out = append(out, e)
		}
	}
	return out
}

// addFieldsDoc sets the computed fields of n in d: existing fields keep
// their position, new ones are appended; $$REMOVE removes a field.
func addFieldsDoc(n *projNode, v *Vars, root, d bson.D) (bson.D, error) {
	out := make(bson.D, len(d))
	copy(out, d)
	for _, k := range n.order {
		child := n.children[k]
		if child.expr != nil {
			val, err := child.expr(v, root)
			if err != nil {
				return nil, err
			}
			if IsMissing(val) {
				out = removeField(out, k)
			} else {
				out = setField(out, k, val)
			}
			continue
		}
		cur, _ := lookupField(out, k)
		switch x := cur.(type) {
		case bson.D:
			sub, err := addFieldsDoc(child, v, root, x)
			if err != nil {
				return nil, err
			}
			out = setField(out, k, sub)
		case bson.A:
			sub := make(bson.A, len(x))
			for i, e := range x {
				ed, ok := e.(bson.D)
				if !ok {
					ed = bson.D{}
				}
				r, err := addFieldsDoc(child, v, root, ed)
				if err != nil {
					return nil, err
				}
				sub[i] = r
			}
			out = setField(out, k, sub)
		default:
			sub, err := addFieldsDoc(child, v, root, bson.D{})
			if err != nil {
				return nil, err
			}
			out = setField(out, k, sub)
		}
	}
	return out, nil
}
