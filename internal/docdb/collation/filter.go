package collation

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Filter returns filter with the strings it compares documents against
// replaced by their collation keys: the operands of equality,
// comparison, $in, $nin and $all, under $not, $elemMatch and the logical
// operators. The operands of $type, $exists, $size, $mod and the other
// operators that do not compare strings stay as given, and so does $expr,
// which is evaluated over the Original document with the collation in its
// variables. A $regex (or a regular expression as the value) on a field
// outside $elemMatch is moved to the same path under OriginalField, so that
// it matches the text of the document Matchable returns, not its collation
// keys.
func Filter(c *Collator, filter bson.D) bson.D { return collatedFilter(c, filter, true) }

// OriginalField is the field Matchable adds to a document to hold its
// original strings, for the regular expressions and the $expr of a
// collated filter. BSON
// keys cannot hold its NUL byte, so no stored document has it.
const OriginalField = "\x00original"

// Matchable returns doc as a collated filter (Filter) matches it: its
// strings mapped to collation keys, and doc itself under OriginalField.
func (c *Collator) Matchable(doc bson.D) bson.D {
	out := c.Doc(doc)
	return append(out, bson.E{Key: OriginalField, Value: doc})
}

// Original returns the document Matchable made doc from, or doc itself when
// it was not made by Matchable.
func Original(doc bson.D) bson.D {
	if n := len(doc); n > 0 && doc[n-1].Key == OriginalField {
		if orig, ok := doc[n-1].Value.(bson.D); ok {
			return orig
		}
	}
	return doc
}

func collatedFilter(c *Collator, filter bson.D, top bool) bson.D {
	out := make(bson.D, 0, len(filter))
	for _, e := range filter {
		var v any
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			v = collatedClauses(c, e.Value, top)
		case e.Key == "$expr":
			// An expression compares by the collation itself (its
			// comparison operators take it from the variables), over the
			// original document (Original): mapping its strings would
			// feed collation keys to $toUpper, $concat and the others.
			v = e.Value
		case strings.HasPrefix(e.Key, "$"):
			v = collatedOperand(c, e.Key, e.Value)
		default:
			if top {
				rest, regex := splitRegex(e.Value)
				if regex != nil {
					out = append(out, bson.E{Key: OriginalField + "." + e.Key, Value: regex})
					if rest == nil {
						continue
					}
					e.Value = rest
				}
			}
			v = collatedCondition(c, e.Value)
		}
		out = append(out, bson.E{Key: e.Key, Value: v})
	}
	return out
}

// splitRegex splits a field's condition into its regular expression part
// (a regex value, or $regex with $options, or $not of a regex) and the
// rest; rest is nil when nothing is left, regex nil when there is none.
func splitRegex(v any) (rest, regex any) {
	if _, ok := v.(bson.Regex); ok {
		return nil, v
	}
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 || !strings.HasPrefix(d[0].Key, "$") {
		return v, nil
	}
	var re, others bson.D
	for _, e := range d {
		_, isRegex := e.Value.(bson.Regex)
		switch {
		case e.Key == "$regex" || e.Key == "$options" || (e.Key == "$not" && isRegex):
			re = append(re, e)
		default:
			others = append(others, e)
		}
	}
	if re == nil {
		return v, nil
	}
	if others == nil {
		return nil, re
	}
	return others, re
}

func collatedClauses(c *Collator, v any, top bool) any {
	arr, ok := v.(bson.A)
	if !ok {
		return v
	}
	out := make(bson.A, len(arr))
	for i, x := range arr {
		if d, ok := x.(bson.D); ok {
			out[i] = collatedFilter(c, d, top)
		} else {
			out[i] = x
		}
	}
	return out
}

// collatedCondition maps a field's condition: an operator document, or a
// value the field must equal.
func collatedCondition(c *Collator, v any) any {
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

func collatedOperand(c *Collator, op string, v any) any {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$all":
		return c.Value(v)
	case "$not":
		return collatedCondition(c, v)
	case "$elemMatch":
		if d, ok := v.(bson.D); ok {
			return collatedFilter(c, d, false)
		}
	}
	return v
}
