package aggregate

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// Expr is a compiled aggregation expression.
type Expr interface {
	// Eval evaluates the expression against doc (the current document,
	// $$CURRENT) with the variables vars (which may be nil). The result is a
	// BSON value, or Missing.
	Eval(vars *Vars, doc bson.D) (any, error)
}

// evalFn is the form every compiled expression takes.
type evalFn func(v *Vars, doc bson.D) (any, error)

// Eval implements Expr.
func (f evalFn) Eval(v *Vars, doc bson.D) (any, error) {
	if v == nil {
		v = &Vars{}
	}
	return f(v, doc)
}

// Vars carries the variables an expression sees while it is evaluated:
// $$NOW, $$ROOT and the user variables bound by $let, $map, $filter,
// $reduce and $lookup's let. A Vars is immutable; Bind returns a child.
type Vars struct {
	// Now is the value of $$NOW and $$CLUSTER_TIME (one value per command).
	Now time.Time
	// Root is $$ROOT; when nil the document passed to Eval is the root.
	Root bson.D

	// coll is the collation comparisons of strings use (nil: bytewise).
	coll *collation.Collator

	parent *Vars
	name   string
	value  any
}

// WithCollation returns a copy of v whose comparison operators ($eq, $cmp,
// $in, $indexOfArray and the set operators) compare strings by c (nil for
// the binary order).
func (v *Vars) WithCollation(c *collation.Collator) *Vars {
	if v == nil {
		return &Vars{coll: c}
	}
	out := *v
	out.coll = c
	return &out
}

// collation returns the collation of v's comparisons; nil for bytewise.
func (v *Vars) collation() *collation.Collator {
	if v == nil {
		return nil
	}
	return v.coll
}

// NewVars returns variables with $$NOW set to now.
func NewVars(now time.Time) *Vars { return &Vars{Now: now} }

// Bind returns a child of v in which $$name is value.
func (v *Vars) Bind(name string, value any) *Vars {
	if v == nil {
		v = &Vars{}
	}
	return &Vars{Now: v.Now, Root: v.Root, coll: v.coll, parent: v, name: name, value: value}
}

// WithRoot returns a copy of v whose $$ROOT is root.
func (v *Vars) WithRoot(root bson.D) *Vars {
	if v == nil {
		return &Vars{Root: root}
	}
	c := *v
	c.Root = root
	return &c
}

// lookup returns the user variable name.
func (v *Vars) lookup(name string) (any, bool) {
	for p := v; p != nil; p = p.parent {
		if p.parent != nil && p.name == name {
			return p.value, true
		}
	}
	return nil, false
}

// CompileOptions adjusts compilation.
type CompileOptions struct {
	// Vars names the user variables defined around the expression (the let
	// variables of an enclosing $lookup, or a command's let).
	Vars []string
}

// compiler holds the scope of variables visible while compiling.
type compiler struct {
	scope map[string]int
}

func newCompiler(vars []string) *compiler {
	c := &compiler{scope: map[string]int{}}
	for _, n := range vars {
		c.scope[n]++
	}
	return c
}

func (c *compiler) push(names ...string) {
	for _, n := range names {
		c.scope[n]++
	}
}

func (c *compiler) pop(names ...string) {
	for _, n := range names {
		c.scope[n]--
		if c.scope[n] <= 0 {
			delete(c.scope, n)
		}
	}
}

// Compile compiles an aggregation expression: a field path ("$a.b"), a
// variable ("$$ROOT.a"), an operator document ({$add: [...]}), an object or
// array expression, or a literal.
func Compile(expr any) (Expr, error) { return CompileWith(expr, CompileOptions{}) }

// CompileWith compiles with options (predefined variables).
func CompileWith(expr any, opts CompileOptions) (Expr, error) {
	c := newCompiler(opts.Vars)
	f, err := c.compile(expr)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// compile compiles one expression.
func (c *compiler) compile(expr any) (evalFn, error) {
	switch x := expr.(type) {
	case string:
		if strings.HasPrefix(x, "$") {
			return c.compilePath(x)
		}
		return constant(x), nil
	case bson.D:
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			if len(x) > 1 {
				return nil, mongoerr.Newf(mongoerr.Location15983, "an expression specification must contain exactly one field, the name of the expression. Found %d fields in %s, while parsing object %s", len(x), fmtValue(x), fmtValue(x))
			}
			return c.compileOperator(x[0].Key, x[0].Value)
		}
		return c.compileObject(x)
	case bson.M:
		d, _ := asDoc(x)
		return c.compile(d)
	case bson.A:
		return c.compileArray(x)
	case []any:
		return c.compileArray(bson.A(x))
	}
	return constant(expr), nil
}

// constant returns an expression yielding v.
func constant(v any) evalFn {
	return func(*Vars, bson.D) (any, error) { return v, nil }
}

// compileArray compiles an array expression: each element is an
// expression, and missing results become null.
func (c *compiler) compileArray(a bson.A) (evalFn, error) {
	elems := make([]evalFn, len(a))
	for i, e := range a {
		f, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		elems[i] = f
	}
	return func(v *Vars, doc bson.D) (any, error) {
		out := make(bson.A, len(elems))
		for i, f := range elems {
			r, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			out[i] = arrayValue(r)
		}
		return out, nil
	}, nil
}

// compileObject compiles an object expression: each field is an
// expression; fields whose value is missing are left out.
func (c *compiler) compileObject(d bson.D) (evalFn, error) {
	type field struct {
		name string
		f    evalFn
	}
	fields := make([]field, 0, len(d))
	seen := map[string]bool{}
	for _, e := range d {
		if err := validateFieldName(e.Key); err != nil {
			return nil, err
		}
		if seen[e.Key] {
			return nil, mongoerr.Newf(mongoerr.Location16406, "duplicate field name specified in object literal: %s", fmtValue(d))
		}
		seen[e.Key] = true
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		fields = append(fields, field{e.Key, f})
	}
	return func(v *Vars, doc bson.D) (any, error) {
		out := make(bson.D, 0, len(fields))
		for _, fl := range fields {
			r, err := fl.f(v, doc)
			if err != nil {
				return nil, err
			}
			if IsMissing(r) {
				continue
			}
			out = append(out, bson.E{Key: fl.name, Value: r})
		}
		return out, nil
	}, nil
}

// validateFieldName checks a field name of an object expression or a
// stage's output field.
func validateFieldName(name string) error {
	switch {
	case name == "":
		return mongoerr.New(mongoerr.Location15998, "FieldPath field names may not be empty strings.")
	case strings.HasPrefix(name, "$"):
		return mongoerr.Newf(mongoerr.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	case strings.Contains(name, "."):
		return mongoerr.New(mongoerr.Location16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField.")
	case strings.ContainsRune(name, 0):
		return mongoerr.New(mongoerr.Location16411, "FieldPath field names may not contain '\\0'.")
	}
	return nil
}

// splitPath splits a dotted field path and validates its parts.
func splitPath(p string) ([]string, error) {
	parts := strings.Split(p, ".")
	for _, s := range parts {
		if s == "" {
			return nil, mongoerr.New(mongoerr.Location15998, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(s, "$") {
			return nil, mongoerr.Newf(mongoerr.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return parts, nil
}

// systemVars are the variables every expression may read.
var systemVars = map[string]bool{
	"ROOT": true, "CURRENT": true, "NOW": true, "CLUSTER_TIME": true, "REMOVE": true,
}

// compilePath compiles "$a.b" and "$$var.a.b".
func (c *compiler) compilePath(raw string) (evalFn, error) {
	if raw == "$" {
		return nil, mongoerr.New(mongoerr.Location16872, "'$' by itself is not a valid FieldPath")
	}
	if !strings.HasPrefix(raw, "$$") {
		parts, err := splitPath(raw[1:])
		if err != nil {
			return nil, err
		}
		return func(v *Vars, doc bson.D) (any, error) {
			return evalPath(doc, parts), nil
		}, nil
	}
	body := raw[2:]
	name, rest, hasRest := strings.Cut(body, ".")
	if name == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "empty variable names are not allowed")
	}
	var parts []string
	if hasRest {
		p, err := splitPath(rest)
		if err != nil {
			return nil, err
		}
		parts = p
	}
	var base evalFn
	switch {
	case c.scope[name] > 0:
		base = func(v *Vars, doc bson.D) (any, error) {
			val, ok := v.lookup(name)
			if !ok {
				return Missing, nil
			}
			return val, nil
		}
	case name == "ROOT":
		base = func(v *Vars, doc bson.D) (any, error) {
			if v.Root != nil {
				return v.Root, nil
			}
			return doc, nil
		}
	case name == "CURRENT":
		base = func(v *Vars, doc bson.D) (any, error) { return doc, nil }
	case name == "NOW":
		base = func(v *Vars, doc bson.D) (any, error) { return bson.NewDateTimeFromTime(v.Now), nil }
	case name == "CLUSTER_TIME":
		base = func(v *Vars, doc bson.D) (any, error) {
			return bson.Timestamp{T: uint32(v.Now.Unix()), I: 1}, nil
		}
	case name == "REMOVE":
		base = func(*Vars, bson.D) (any, error) { return Missing, nil }
	default:
		if err := validateVarName(name); err != nil {
			return nil, err
		}
		return nil, mongoerr.Newf(mongoerr.Location17276, "Use of undefined variable: %s", name)
	}
	if parts == nil {
		return base, nil
	}
	return func(v *Vars, doc bson.D) (any, error) {
		val, err := base(v, doc)
		if err != nil {
			return nil, err
		}
		switch x := val.(type) {
		case bson.D:
			return evalPath(x, parts), nil
		case bson.A:
			return evalPathArray(x, parts), nil
		}
		return Missing, nil
	}, nil
}

// validateVarName applies MongoDB's rules for user variable names.
func validateVarName(name string) error {
	if name == "" {
		return mongoerr.New(mongoerr.Location16866, "empty variable names are not allowed")
	}
	r := name[0]
	if !(r >= 'a' && r <= 'z') && r < 0x80 {
		return mongoerr.Newf(mongoerr.Location16867, "'%s' starts with an invalid character for a user variable name", name)
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if b < 0x80 && !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_') {
			return mongoerr.Newf(mongoerr.Location16868, "'%s' contains an invalid character for a variable name: '%c'", name, b)
		}
	}
	return nil
}

// evalPath walks parts through d with the aggregation rules: a document
// descends, an array maps the rest of the path over its document
// elements, anything else is missing.
func evalPath(d bson.D, parts []string) any {
	v, ok := lookupField(d, parts[0])
	if !ok {
		return Missing
	}
	if len(parts) == 1 {
		return v
	}
	switch x := v.(type) {
	case bson.D:
		return evalPath(x, parts[1:])
	case bson.A:
		return evalPathArray(x, parts[1:])
	}
	return Missing
}

// evalPathArray applies the rest of a path to each document element of a.
func evalPathArray(a bson.A, parts []string) any {
	out := make(bson.A, 0, len(a))
	for _, e := range a {
		d, ok := e.(bson.D)
		if !ok {
			continue
		}
		r := evalPath(d, parts)
		if !IsMissing(r) {
			out = append(out, r)
		}
	}
	return out
}

// GetPath evaluates the dotted field path p (without "$") against d with
// the aggregation rules for arrays; it returns Missing when absent.
func GetPath(d bson.D, p string) any {
	return evalPath(d, strings.Split(p, "."))
}

// compareBy is compare with strings ordered by the collation c (nil:
// bytewise).
func compareBy(c *collation.Collator, a, b any) int {
	if c != nil {
		a, b = c.Value(a), c.Value(b)
	}
	return compare(a, b)
}

// compare compares two values in MongoDB's order; Missing compares like
// undefined.
func compare(a, b any) int {
	if IsMissing(a) {
		a = bson.Undefined{}
	}
	if IsMissing(b) {
		b = bson.Undefined{}
	}
	return query.Compare(a, b)
}

// equal reports whether a and b are equal in MongoDB's order.
func equal(a, b any) bool { return compare(a, b) == 0 }

// Names returns the names of the user variables bound in v.
func (v *Vars) Names() []string {
	var out []string
	seen := map[string]bool{}
	for p := v; p != nil; p = p.parent {
		if p.parent != nil && !seen[p.name] {
			seen[p.name] = true
			out = append(out, p.name)
		}
	}
	return out
}
