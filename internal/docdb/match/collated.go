package match

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
)

// collatedFilter returns filter with the strings it compares documents
// against replaced by their collation keys: the operands of equality,
// comparison, $in, $nin and $all, under $not, $elemMatch and the logical
// operators, and the string constants of $expr (not its field paths and
// variables). The operands of $regex, $type, $exists, $size, $mod and the
// other operators that do not compare strings stay as given; a $regex then
// sees the documents' collation keys, not their text.
func collatedFilter(c *collation.Collator, filter bson.D) bson.D {
	out := make(bson.D, len(filter))
	for i, e := range filter {
		var v any
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			v = collatedClauses(c, e.Value)
		case e.Key == "$expr":
			v = collatedExpr(c, e.Value)
		case strings.HasPrefix(e.Key, "$"):
			v = collatedOperand(c, e.Key, e.Value)
		default:
			v = collatedCondition(c, e.Value)
		}
		out[i] = bson.E{Key: e.Key, Value: v}
	}
	return out
}

func collatedClauses(c *collation.Collator, v any) any {
	arr, ok := v.(bson.A)
	if !ok {
		return v
	}
	out := make(bson.A, len(arr))
	for i, x := range arr {
		if d, ok := x.(bson.D); ok {
			out[i] = collatedFilter(c, d)
		} else {
			out[i] = x
		}
	}
	return out
}

// collatedCondition maps a field's condition: an operator document, or a
// value the field must equal.
func collatedCondition(c *collation.Collator, v any) any {
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 || !strings.HasPrefix(d[0].Key, "$") {
		return c.Value(v)
	}
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.Key, Value: collatedOperand(c, e.Key, e.Value)}
	}
	return out
}

func collatedOperand(c *collation.Collator, op string, v any) any {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$all":
		return c.Value(v)
	case "$not":
		return collatedCondition(c, v)
	case "$elemMatch":
		if d, ok := v.(bson.D); ok {
			return collatedFilter(c, d)
		}
	}
	return v
}

// collatedExpr maps the string constants of an aggregation expression.
func collatedExpr(c *collation.Collator, v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "$") {
			return x
		}
		return c.Key(x)
	case bson.D:
		if len(x) == 1 && x[0].Key == "$literal" {
			return bson.D{{Key: "$literal", Value: c.Value(x[0].Value)}}
		}
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: collatedExpr(c, e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = collatedExpr(c, e)
		}
		return out
	}
	return v
}
