package aggregate

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// opCompiler compiles the argument of one operator.
type opCompiler func(c *compiler, name string, arg any) (evalFn, error)

// operators is the table of expression operators, filled by init functions
// in the files of each operator family.
var operators = map[string]opCompiler{}

func register(fn opCompiler, names ...string) {
	for _, n := range names {
		operators[n] = fn
	}
}

// compileOperator compiles {name: arg}.
func (c *compiler) compileOperator(name string, arg any) (evalFn, error) {
	fn, ok := operators[name]
	if !ok {
		return nil, mongoerr.Newf(mongoerr.InvalidPipelineOperator, "Unrecognized expression '%s'", name)
	}
	return fn(c, name, arg)
}

// argList returns the operand expressions of an operator: an array argument
// gives one operand per element, anything else is a single operand.
func argList(arg any) bson.A {
	if a, ok := asArray(arg); ok {
		return a
	}
	return bson.A{arg}
}

// compileArgs compiles the operands, checking their number.
func (c *compiler) compileArgs(name string, arg any, minN, maxN int) ([]evalFn, error) {
	list := argList(arg)
	n := len(list)
	if minN == maxN && n != minN {
		return nil, mongoerr.Newf(mongoerr.Location16020, "Expression %s takes exactly %d arguments. %d were passed in.", name, minN, n)
	}
	if n < minN {
		if maxN < 0 {
			return nil, mongoerr.Newf(mongoerr.Location16020, "Expression %s takes at least %d arguments, but %d were passed in.", name, minN, n)
		}
		return nil, mongoerr.Newf(mongoerr.Location16020, "Expression %s takes at least %d arguments, and at most %d, but %d were passed in.", name, minN, maxN, n)
	}
	if maxN >= 0 && n > maxN {
		return nil, mongoerr.Newf(mongoerr.Location16020, "Expression %s takes at least %d arguments, and at most %d, but %d were passed in.", name, minN, maxN, n)
	}
	out := make([]evalFn, n)
	for i, e := range list {
		f, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// evalAll evaluates each operand.
func evalAll(fs []evalFn, v *Vars, doc bson.D) ([]any, error) {
	out := make([]any, len(fs))
	for i, f := range fs {
		r, err := f(v, doc)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// namedArgs parses the document argument of an operator with named
// parameters ({input: ..., as: ...}). required lists mandatory names.
func namedArgs(name string, arg any, allowed []string, required []string) (map[string]any, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "%s only supports an object as its argument", name)
	}
	out := map[string]any{}
	for _, e := range d {
		found := false
		for _, a := range allowed {
			if a == e.Key {
				found = true
				break
			}
		}
		if !found {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "%s found an unknown argument: %s", name, e.Key)
		}
		out[e.Key] = e.Value
	}
	for _, r := range required {
		if _, ok := out[r]; !ok {
			return nil, mongoerr.Newf(mongoerr.FailedToParse, "Missing '%s' parameter to %s", r, name)
		}
	}
	return out, nil
}

// unary compiles a one-operand operator whose result depends only on the
// operand's value.
func unary(fn func(name string, x any) (any, error)) opCompiler {
	return func(c *compiler, name string, arg any) (evalFn, error) {
		fs, err := c.compileArgs(name, arg, 1, 1)
		if err != nil {
			return nil, err
		}
		f := fs[0]
		return func(v *Vars, doc bson.D) (any, error) {
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			return fn(name, x)
		}, nil
	}
}

// collatedNary is nary for operators that compare their arguments: under
// a collation (Vars.WithCollation) fn sees the arguments with their
// strings mapped to collation keys, and an array it returns (the set
// operators') is mapped back to the arguments' own elements, the first of
// those equal under the collation.
func collatedNary(minN, maxN int, fn func(name string, xs []any) (any, error)) opCompiler {
	return naryVars(minN, maxN, func(v *Vars, name string, xs []any) (any, error) {
		coll := v.collation()
		if coll == nil {
			return fn(name, xs)
		}
		mapped := make([]any, len(xs))
		for i, x := range xs {
			mapped[i] = coll.Value(x)
		}
		out, err := fn(name, mapped)
		if a, ok := out.(bson.A); ok && err == nil {
			return originalElements(a, xs, mapped), nil
		}
		return out, err
	})
}

// originalElements maps the elements of out, taken from the arrays of
// mapped, back to the elements of xs at the same places.
func originalElements(out bson.A, xs, mapped []any) bson.A {
	first := map[string]any{}
	for i, m := range mapped {
		ma, ok := asArray(m)
		if !ok {
			continue
		}
		xa, _ := asArray(xs[i])
		for j, e := range ma {
			k := canonicalKey(e)
			if _, seen := first[k]; !seen {
				first[k] = xa[j]
			}
		}
	}
	res := make(bson.A, len(out))
	for i, e := range out {
		res[i] = first[canonicalKey(e)]
	}
	return res
}

// nary compiles an operator over evaluated operands.
func nary(minN, maxN int, fn func(name string, xs []any) (any, error)) opCompiler {
	return naryVars(minN, maxN, func(_ *Vars, name string, xs []any) (any, error) { return fn(name, xs) })
}

// naryVars is nary for an fn that also sees the variables.
func naryVars(minN, maxN int, fn func(v *Vars, name string, xs []any) (any, error)) opCompiler {
	return func(c *compiler, name string, arg any) (evalFn, error) {
		fs, err := c.compileArgs(name, arg, minN, maxN)
		if err != nil {
			return nil, err
		}
		return func(v *Vars, doc bson.D) (any, error) {
			xs, err := evalAll(fs, v, doc)
			if err != nil {
				return nil, err
			}
			return fn(v, name, xs)
		}, nil
	}
}
