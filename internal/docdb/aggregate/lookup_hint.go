package aggregate

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// scanHint derives, for a $lookup sub-pipeline, a query filter the
// Resolver can use to narrow its scan (with an index): the leading $match
// when it has no $expr, or, for the usual correlated form
// {$match: {$expr: {$eq: ["$field", "$$var"]}}} (alone or inside $and),
// {field: {$eq: <value of var>}}. The hint only ever selects a superset of
// the documents the $match keeps (query equality also matches arrays that
// contain the value, and null matches missing), and the sub-pipeline still
// applies its $match, so results do not depend on whether the Resolver
// uses the hint.
func scanHint(sub *Pipeline, vars *Vars) bson.D {
	if sub == nil || len(sub.stages) == 0 {
		return nil
	}
	m, ok := sub.stages[0].(*matchStage)
	if !ok {
		return nil
	}
	if !m.hasExpr {
		return m.spec
	}
	var hint bson.D
	for _, e := range m.spec {
		if e.Key != "$expr" {
			continue
		}
		for _, c := range exprEqualities(e.Value) {
			val, ok := vars.lookup(c.varName)
			if !ok || IsMissing(val) {
				continue
			}
			if c.varPath != "" {
				d, isDoc := val.(bson.D)
				if !isDoc {
					continue
				}
				val = GetPath(d, c.varPath)
				if IsMissing(val) {
					continue
				}
			}
			if _, isArr := val.(bson.A); isArr {
				continue
			}
			hint = append(hint, bson.E{Key: c.field, Value: bson.D{{Key: "$eq", Value: val}}})
		}
	}
	return hint
}

// exprEquality is one {$eq: ["$field", "$$var.path"]} found in an $expr.
type exprEquality struct {
	field   string
	varName string
	varPath string
}

// exprEqualities finds the field-to-variable equalities of an $expr that
// every matching document satisfies (top level or under $and).
func exprEqualities(expr any) []exprEquality {
	d, ok := expr.(bson.D)
	if !ok || len(d) != 1 {
		return nil
	}
	args, ok := d[0].Value.(bson.A)
	if !ok {
		return nil
	}
	switch d[0].Key {
	case "$and":
		var out []exprEquality
		for _, a := range args {
			out = append(out, exprEqualities(a)...)
		}
		return out
	case "$eq":
		if len(args) != 2 {
			return nil
		}
		f, fok := args[0].(string)
		v, vok := args[1].(string)
		if !fok || !vok {
			f, fok = args[1].(string)
			v, vok = args[0].(string)
		}
		if !fok || !vok || !strings.HasPrefix(f, "$") || strings.HasPrefix(f, "$$") || !strings.HasPrefix(v, "$$") {
			return nil
		}
		name, path, _ := strings.Cut(v[2:], ".")
		if systemVars[name] {
			return nil
		}
		return []exprEquality{{field: f[1:], varName: name, varPath: path}}
	}
	return nil
}
