package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ValidationDetails explains why doc fails the filter when it is used as a
// collection validator: the value MongoDB puts in errInfo.details of a
// DocumentValidationFailure (code 121, "Document failed validation"). The
// caller adds failingDocumentId beside it.
//
// $jsonSchema failures follow MongoDB 5.1+: {operatorName: "$jsonSchema",
// schemaRulesNotSatisfied: [{operatorName: "properties",
// propertiesNotSatisfied: [{propertyName, description?, details: [...]}]},
// {operatorName: "required", specifiedAs: {required: [...]},
// missingProperties: [...]}, ...]}, with each keyword's reason
// ("type did not match" with consideredValue and consideredType,
// "comparison failed", "specified string length was not satisfied", ...).
// Query-operator validators report {operatorName: "$and",
// clausesNotSatisfied: [{index, details}]}, and per operator
// {operatorName, specifiedAs: {path: {op: arg}}, reason, consideredValue(s)}.
// For a document that matches, the result describes nothing useful; call it
// only after Match returned false.
func (f *Filter) ValidationDetails(doc bson.D) bson.D {
	return explainNode(f.root, doc, false)
}

var reasons = map[string][2]string{
	"$eq":           {"comparison failed", "comparison succeeded"},
	"$lt":           {"comparison failed", "comparison succeeded"},
	"$lte":          {"comparison failed", "comparison succeeded"},
	"$gt":           {"comparison failed", "comparison succeeded"},
	"$gte":          {"comparison failed", "comparison succeeded"},
	"$ne":           {"comparison succeeded", "comparison failed"},
	"$in":           {"no matching value found in array", "matching value found in array"},
	"$nin":          {"matching value found in array", "no matching value found in array"},
	"$regex":        {"regular expression did not match", "regular expression did match"},
	"$type":         {"type did not match", "type did match"},
	"$mod":          {"$mod did not evaluate to expected remainder", "$mod did evaluate to expected remainder"},
	"$size":         {"array length was not equal to given size", "array length was equal to given size"},
	"$elemMatch":    {"array did not satisfy the child predicate", "array did satisfy the child predicate"},
	"$all":          {"array did not contain all specified values", "array did contain all specified values"},
	"$bitsAllSet":   {"bitwise operator failed to match", "bitwise operator matched successfully"},
	"$bitsAllClear": {"bitwise operator failed to match", "bitwise operator matched successfully"},
	"$bitsAnySet":   {"bitwise operator failed to match", "bitwise operator matched successfully"},
	"$bitsAnyClear": {"bitwise operator failed to match", "bitwise operator matched successfully"},
}

func explainNode(n node, doc bson.D, inverted bool) bson.D {
	switch x := n.(type) {
	case *andNode:
		return explainList("$and", x.children, doc, inverted)
	case *orNode:
		return explainList("$or", x.children, doc, inverted)
	case *norNode:
		return explainList("$nor", x.children, doc, inverted)
	case *notNode:
		if p, ok := x.child.(*pathNode); ok && negatedOps[p.op] {
			// $ne, $nin and {$exists: false} are NOT nodes over one operator.
			return explainPath(p, doc, !inverted)
		}
		return bson.D{
			{Key: "operatorName", Value: "$not"},
			{Key: "details", Value: explainNode(x.child, doc, !inverted)},
		}
	case *pathNode:
		return explainPath(x, doc, inverted)
	case *exprNode:
		return bson.D{
			{Key: "operatorName", Value: "$expr"},
			{Key: "specifiedAs", Value: bson.D{{Key: "$expr", Value: x.spec}}},
			{Key: "reason", Value: pick2("expression did not match", "expression did match", inverted)},
			{Key: "expressionResult", Value: inverted},
		}
	case *schemaNode:
		if inverted {
			return bson.D{{Key: "operatorName", Value: "$jsonSchema"}, {Key: "reason", Value: "schema matched"}}
		}
		return x.explain(doc)
	case *constNode:
		name := "$alwaysFalse"
		if x.value {
			name = "$alwaysTrue"
		}
		return bson.D{
			{Key: "operatorName", Value: name},
			{Key: "specifiedAs", Value: bson.D{{Key: name, Value: int32(1)}}},
			{Key: "reason", Value: pick2("expression always evaluates to false", "expression always evaluates to true", inverted)},
		}
	}
	return bson.D{}
}

var negatedOps = map[string]bool{"$ne": true, "$nin": true, "$exists": true}

func pick2(normal, inverted string, inv bool) string {
	if inv {
		return inverted
	}
	return normal
}

// explainList reports the clauses of a logical operator that are
// responsible: for $and (and an inverted $or) those that did not match, for
// $or those that did not match, for $nor those that matched.
func explainList(name string, children []node, doc bson.D, inverted bool) bson.D {
	field := "clausesNotSatisfied"
	childInverted := inverted
	wantMatch := false
	switch {
	case name == "$nor" && !inverted, name != "$nor" && inverted:
		field = "clausesSatisfied"
		wantMatch = true
		childInverted = true
	}
	if name == "$nor" {
		childInverted = !inverted
	}
	var clauses bson.A
	for i, c := range children {
		ec := evalCtx{index: -1}
		matched := c.match(doc, &ec) && ec.err == nil
		if matched != wantMatch {
			continue
		}
		clauses = append(clauses, bson.D{
			{Key: "index", Value: int32(i)},
			{Key: "details", Value: explainNode(c, doc, childInverted)},
		})
	}
	if clauses == nil {
		clauses = bson.A{}
	}
	return bson.D{{Key: "operatorName", Value: name}, {Key: field, Value: clauses}}
}

func explainPath(p *pathNode, doc bson.D, inverted bool) bson.D {
	arg := p.arg
	var spec bson.D
	switch {
	case p.op == "$eq" && p.implicit:
		spec = bson.D{{Key: p.path, Value: arg}}
	default:
		spec = bson.D{{Key: p.path, Value: bson.D{{Key: p.op, Value: arg}}}}
	}
	out := bson.D{
		{Key: "operatorName", Value: p.op},
		{Key: "specifiedAs", Value: spec},
	}
	if p.op == "$exists" {
		exists := Truthy(arg)
		var reason string
		if exists != inverted {
			reason = "path does not exist"
		} else {
			reason = "path does exist"
		}
		return append(out, bson.E{Key: "reason", Value: reason})
	}
	values := consideredValues(doc, p.parts, p.leaf)
	if values == nil {
		return append(out, bson.E{Key: "reason", Value: "field was missing"})
	}
	r, ok := reasons[p.op]
	if !ok {
		r = [2]string{"comparison failed", "comparison succeeded"}
	}
	out = append(out, bson.E{Key: "reason", Value: pick2(r[0], r[1], inverted)})
	if len(values) == 1 {
		out = append(out, bson.E{Key: "consideredValue", Value: values[0]})
	} else {
		out = append(out, bson.E{Key: "consideredValues", Value: values})
	}
	if p.op == "$type" {
		types := map[string]bool{}
		var names bson.A
		for _, v := range values {
			n := TypeName(v)
			if !types[n] {
				types[n] = true
				names = append(names, n)
			}
		}
		if len(names) == 1 {
			out = append(out, bson.E{Key: "consideredType", Value: names[0]})
		} else {
			out = append(out, bson.E{Key: "consideredTypes", Value: names})
		}
	}
	return out
}

// consideredValues lists the values a path reaches, expanding arrays at the
// end of the path for per-element operators but not the arrays themselves;
// nil when there are none.
func consideredValues(doc bson.D, parts []string, leaf LeafArrays) bson.A {
	var out bson.A
	Walk(doc, parts, WholeLeafArrays, func(c Candidate) bool {
		if c.Missing {
			return true
		}
		if a, ok := AsArray(c.Value); ok && leaf == ExpandLeafArrays {
			out = append(out, a...)
			return true
		}
		out = append(out, c.Value)
		return true
	})
	return out
}
