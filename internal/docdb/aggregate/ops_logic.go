package aggregate

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(compileLiteral, "$literal")
	register(collatedNary(2, 2, func(name string, xs []any) (any, error) {
		r := compare(xs[0], xs[1])
		var ok bool
		switch name {
		case "$eq":
			ok = r == 0
		case "$ne":
			ok = r != 0
		case "$gt":
			ok = r > 0
		case "$gte":
			ok = r >= 0
		case "$lt":
			ok = r < 0
		case "$lte":
			ok = r <= 0
		case "$cmp":
			return int32(r), nil
		}
		return ok, nil
	}), "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp")
	register(compileAndOr, "$and", "$or")
	register(unary(func(_ string, x any) (any, error) { return !truthy(x), nil }), "$not")
	register(compileCond, "$cond")
	register(compileIfNull, "$ifNull")
	register(compileSwitch, "$switch")
	register(compileLet, "$let")
}

func compileLiteral(_ *compiler, _ string, arg any) (evalFn, error) {
	return constant(arg), nil
}

// compileAndOr compiles $and and $or, which short-circuit.
func compileAndOr(c *compiler, name string, arg any) (evalFn, error) {
	fs, err := c.compileArgs(name, arg, 0, -1)
	if err != nil {
		return nil, err
	}
	isAnd := name == "$and"
	return func(v *Vars, doc bson.D) (any, error) {
		for _, f := range fs {
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			t := truthy(x)
			if isAnd && !t {
				return false, nil
			}
			if !isAnd && t {
				return true, nil
			}
		}
		return isAnd, nil
	}, nil
}

// compileCond compiles $cond in its array and document forms.
func compileCond(c *compiler, name string, arg any) (evalFn, error) {
	var ifE, thenE, elseE any
	if d, ok := asDoc(arg); ok {
		var haveIf, haveThen, haveElse bool
		for _, e := range d {
			switch e.Key {
			case "if":
				ifE, haveIf = e.Value, true
			case "then":
				thenE, haveThen = e.Value, true
			case "else":
				elseE, haveElse = e.Value, true
			default:
				return nil, mongoerr.Newf(mongoerr.Location17083, "Unrecognized parameter to $cond: %s", e.Key)
			}
		}
		switch {
		case !haveIf:
			return nil, mongoerr.New(mongoerr.Location17080, "Missing 'if' parameter to $cond")
		case !haveThen:
			return nil, mongoerr.New(mongoerr.Location17081, "Missing 'then' parameter to $cond")
		case !haveElse:
			return nil, mongoerr.New(mongoerr.Location17082, "Missing 'else' parameter to $cond")
		}
	} else {
		list := argList(arg)
		if len(list) != 3 {
			return nil, mongoerr.Newf(mongoerr.Location16020, "Expression $cond takes exactly 3 arguments. %d were passed in.", len(list))
		}
		ifE, thenE, elseE = list[0], list[1], list[2]
	}
	fi, err := c.compile(ifE)
	if err != nil {
		return nil, err
	}
	ft, err := c.compile(thenE)
	if err != nil {
		return nil, err
	}
	fe, err := c.compile(elseE)
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		x, err := fi(v, doc)
		if err != nil {
			return nil, err
		}
		if truthy(x) {
			return ft(v, doc)
		}
		return fe(v, doc)
	}, nil
}

// compileIfNull compiles $ifNull: the first operand that is not null or
// missing, else the last operand's value.
func compileIfNull(c *compiler, name string, arg any) (evalFn, error) {
	fs, err := c.compileArgs(name, arg, 2, -1)
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		for i, f := range fs {
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			if i == len(fs)-1 || !nullish(x) {
				return x, nil
			}
		}
		return nil, nil
	}, nil
}

// compileSwitch compiles $switch.
func compileSwitch(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40060, "$switch requires an object as an argument, found: %s", TypeName(arg))
	}
	type branch struct{ cs, then evalFn }
	var branches []branch
	var def evalFn
	for _, e := range d {
		switch e.Key {
		case "branches":
			list, ok := asArray(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location40061, "$switch expected an array for 'branches', found: %s", TypeName(e.Value))
			}
			for _, b := range list {
				bd, ok := asDoc(b)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.Location40062, "$switch expected each branch to be an object, found: %s", TypeName(b))
				}
				var br branch
				for _, be := range bd {
					f, err := c.compile(be.Value)
					if err != nil {
						return nil, err
					}
					switch be.Key {
					case "case":
						br.cs = f
					case "then":
						br.then = f
					default:
						return nil, mongoerr.Newf(mongoerr.Location40063, "$switch found an unknown argument to a branch: %s", be.Key)
					}
				}
				if br.cs == nil {
					return nil, mongoerr.New(mongoerr.Location40064, "$switch requires each branch have a 'case' expression")
				}
				if br.then == nil {
					return nil, mongoerr.New(mongoerr.Location40065, "$switch requires each branch have a 'then' expression.")
				}
				branches = append(branches, br)
			}
		case "default":
			f, err := c.compile(e.Value)
			if err != nil {
				return nil, err
			}
			def = f
		default:
			return nil, mongoerr.Newf(mongoerr.Location40067, "$switch found an unknown argument: %s", e.Key)
		}
	}
	if len(branches) == 0 {
		return nil, mongoerr.New(mongoerr.Location40068, "$switch requires at least one branch.")
	}
	return func(v *Vars, doc bson.D) (any, error) {
		for _, b := range branches {
			x, err := b.cs(v, doc)
			if err != nil {
				return nil, err
			}
			if truthy(x) {
				return b.then(v, doc)
			}
		}
		if def == nil {
			return nil, mongoerr.New(mongoerr.Location40066, "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def(v, doc)
	}, nil
}

// compileLet compiles $let: vars are evaluated in the outer scope, then
// "in" sees them.
func compileLet(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location16874, "$let only supports an object as its argument")
	}
	var varsSpec bson.D
	var inE any
	var haveVars, haveIn bool
	for _, e := range d {
		switch e.Key {
		case "vars":
			vd, ok := asDoc(e.Value)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.Location10065, "invalid parameter: expected an object (vars)")
			}
			varsSpec, haveVars = vd, true
		case "in":
			inE, haveIn = e.Value, true
		default:
			return nil, mongoerr.Newf(mongoerr.Location16875, "Unrecognized parameter to $let: %s", e.Key)
		}
	}
	if !haveVars {
		return nil, mongoerr.New(mongoerr.Location16876, "Missing 'vars' parameter to $let")
	}
	if !haveIn {
		return nil, mongoerr.New(mongoerr.Location16877, "Missing 'in' parameter to $let")
	}
	names := make([]string, len(varsSpec))
	values := make([]evalFn, len(varsSpec))
	for i, e := range varsSpec {
		if err := validateVarName(e.Key); err != nil {
			return nil, err
		}
		f, err := c.compile(e.Value)
		if err != nil {
			return nil, err
		}
		names[i], values[i] = e.Key, f
	}
	c.push(names...)
	in, err := c.compile(inE)
	c.pop(names...)
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		inner := v
		for i, f := range values {
			x, err := f(v, doc)
			if err != nil {
				return nil, err
			}
			inner = inner.Bind(names[i], x)
		}
		return in(inner, doc)
	}, nil
}
