package aggregate

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(nary(0, -1, evalMergeObjects), "$mergeObjects")
	register(unary(evalObjectToArray), "$objectToArray")
	register(unary(evalArrayToObject), "$arrayToObject")
	register(compileGetField, "$getField")
}

func evalMergeObjects(_ string, xs []any) (any, error) {
	out := bson.D{}
	for _, x := range xs {
		if nullish(x) {
			continue
		}
		d, ok := asDoc(x)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location40400, "$mergeObjects requires object inputs, but input %s is of type %s", fmtValue(x), TypeName(x))
		}
		for _, e := range d {
			if IsMissing(e.Value) {
				continue
			}
			out = setField(out, e.Key, e.Value)
		}
	}
	return out, nil
}

func evalObjectToArray(_ string, x any) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	d, ok := asDoc(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40390, "$objectToArray requires a document input, found: %s", TypeName(x))
	}
	out := make(bson.A, len(d))
	for i, e := range d {
		out[i] = bson.D{{Key: "k", Value: e.Key}, {Key: "v", Value: e.Value}}
	}
	return out, nil
}

func evalArrayToObject(_ string, x any) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	a, ok := asArray(x)
	if !ok {
		return nil, mongoerr.Newf(mongoerr.Location40386, "$arrayToObject requires an array input, found: %s", TypeName(x))
	}
	out := bson.D{}
	if len(a) == 0 {
		return out, nil
	}
	_, pairs := asArray(a[0])
	_, docs := asDoc(a[0])
	if !pairs && !docs {
		return nil, mongoerr.Newf(mongoerr.Location40398, "Unrecognised input type format for $arrayToObject: %s", TypeName(a[0]))
	}
	for _, e := range a {
		var key, val any
		if pairs {
			p, ok := asArray(e)
			if !ok {
				return nil, mongoerr.New(mongoerr.Location40391, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object was detected, now found: "+TypeName(e))
			}
			if len(p) != 2 {
				return nil, mongoerr.Newf(mongoerr.Location40397, "$arrayToObject requires an array of size 2 arrays,found array of size: %d", len(p))
			}
			key, val = p[0], p[1]
			if _, ok := key.(string); !ok {
				return nil, mongoerr.Newf(mongoerr.Location40395, "$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: %s", TypeName(key))
			}
		} else {
			d, ok := asDoc(e)
			if !ok {
				return nil, mongoerr.New(mongoerr.Location40396, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Array was detected, now found: "+TypeName(e))
			}
			if len(d) != 2 {
				return nil, mongoerr.Newf(mongoerr.Location40392, "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:%d", len(d))
			}
			k, hk := lookupField(d, "k")
			v, hv := lookupField(d, "v")
			if !hk || !hv {
				return nil, mongoerr.Newf(mongoerr.Location40393, "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: %s", fmtValue(d))
			}
			if _, ok := k.(string); !ok {
				return nil, mongoerr.Newf(mongoerr.Location40394, "$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: %s", TypeName(k))
			}
			key, val = k, v
		}
		ks := key.(string)
		if strings.ContainsRune(ks, 0) {
			return nil, mongoerr.New(mongoerr.Location4940400, "Key field cannot contain an embedded null byte")
		}
		out = setField(out, ks, val)
	}
	return out, nil
}

// compileGetField compiles $getField: {field, input} or a field name.
func compileGetField(c *compiler, name string, arg any) (evalFn, error) {
	var fieldE, inputE any = arg, "$$CURRENT"
	if d, ok := asDoc(arg); ok && (len(d) == 0 || !strings.HasPrefix(d[0].Key, "$")) {
		fieldE = nil
		for _, e := range d {
			switch e.Key {
			case "field":
				fieldE = e.Value
			case "input":
				inputE = e.Value
			default:
				return nil, mongoerr.Newf(mongoerr.Location3041701, "$getField found an unknown argument: %s", e.Key)
			}
		}
		if fieldE == nil {
			return nil, mongoerr.New(mongoerr.Location3041702, "$getField requires 'field' to be specified")
		}
	}
	ff, err := c.compile(fieldE)
	if err != nil {
		return nil, err
	}
	fi, err := c.compile(inputE)
	if err != nil {
		return nil, err
	}
	return func(v *Vars, doc bson.D) (any, error) {
		f, err := ff(v, doc)
		if err != nil {
			return nil, err
		}
		fs, ok := f.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location3041704, "$getField requires 'field' to evaluate to type String, but got %s", TypeName(f))
		}
		in, err := fi(v, doc)
		if err != nil {
			return nil, err
		}
		if nullish(in) {
			if IsMissing(in) {
				return Missing, nil
			}
			return nil, nil
		}
		d, ok := asDoc(in)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.Location3041705, "$getField requires 'input' to evaluate to type Object, but got %s", TypeName(in))
		}
		if val, ok := lookupField(d, fs); ok {
			return val, nil
		}
		return Missing, nil
	}, nil
}
