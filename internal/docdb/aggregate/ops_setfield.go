package aggregate

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(compileSetField, "$setField")
	register(compileSetField, "$unsetField")
}

// compileSetField compiles $setField {field, input, value} and $unsetField
// {field, input}: a copy of input (an object, or null which gives null)
// with the field set to value, or removed when value is $$REMOVE or the
// operator is $unsetField. field is a constant string, given as is or
// through $literal or $const, and may hold dots and dollars: it names one
// top-level field, never a path.
func compileSetField(c *compiler, name string, arg any) (evalFn, error) {
	d, ok := asDoc(arg)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location4161100, "%s only supports an object as its argument", name)
	}
	unset := name == "$unsetField"
	var fieldE, inputE, valueE any
	var hasField, hasInput, hasValue bool
	for _, e := range d {
		switch {
		case e.Key == "field":
			fieldE, hasField = e.Value, true
		case e.Key == "input":
			inputE, hasInput = e.Value, true
		case e.Key == "value" && !unset:
			valueE, hasValue = e.Value, true
		default:
			return nil, mongoerr.Newf(mongoerr.Location4161101, "%s found an unknown argument: %s", name, e.Key)
		}
	}
	if !hasField {
		return nil, mongoerr.Newf(mongoerr.Location4161102, "%s requires 'field' to be specified", name)
	}
	if !unset && !hasValue {
		return nil, mongoerr.Newf(mongoerr.Location4161103, "%s requires 'value' to be specified", name)
	}
	if !hasInput {
		return nil, mongoerr.Newf(mongoerr.Location4161104, "%s requires 'input' to be specified", name)
	}
	field, err := constantFieldName(name, fieldE)
	if err != nil {
		return nil, err
	}
	fi, err := c.compile(inputE)
	if err != nil {
		return nil, err
	}
	fv := constant(Missing)
	if !unset {
		if fv, err = c.compile(valueE); err != nil {
			return nil, err
		}
	}
	return func(v *Vars, doc bson.D) (any, error) {
		in, err := fi(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			return nil, nil
		}
		src, ok := asDoc(in)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location4161105, "%s requires 'input' to evaluate to type Object", name)
		}
		val, err := fv(v, doc)
		if err != nil {
			return nil, err
		}
		out := make(bson.D, 0, len(src)+1)
		out = append(out, src...)
		if IsMissing(val) {
			return removeField(out, field), nil
		}
		return setField(out, field, val), nil
	}, nil
}

// constantFieldName returns the field of $setField or $unsetField: a
// string, or {$literal: string} or {$const: string}.
func constantFieldName(op string, fieldE any) (string, error) {
	literal := false
	if fd, ok := asDoc(fieldE); ok && len(fd) == 1 && (fd[0].Key == "$literal" || fd[0].Key == "$const") {
		fieldE, literal = fd[0].Value, true
	}
	switch f := fieldE.(type) {
	case string:
		if !literal && strings.HasPrefix(f, "$") {
			return "", mongoerr.Newf(mongoerr.Location4161108, "A field path reference which is not allowed in this context. Did you mean {$literal: '%s'}?", f)
		}
		return f, nil
	case bson.D, bson.A:
		if !literal {
			return "", mongoerr.Newf(mongoerr.Location4161106, "%s requires 'field' to evaluate to a constant, but got a non-constant argument", op)
		}
	}
	return "", mongoerr.Newf(mongoerr.Location4161107, "%s requires 'field' to evaluate to type String, but got %s", op, TypeName(fieldE))
}
