package events

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// UpdateDescription is what an update changed: the fields set (by dotted
// path), the fields removed, and the arrays shortened. DisambiguatedPaths
// holds, for each of those paths that a dotted path leaves ambiguous
// (disambiguate.go), its parts, array indexes as numbers; it is kept only
// when there is one, and shown only with showExpandedEvents.
type UpdateDescription struct {
	UpdatedFields      bson.D           `bson:"updatedFields"`
	RemovedFields      []string         `bson:"removedFields"`
	TruncatedArrays    []TruncatedArray `bson:"truncatedArrays"`
	DisambiguatedPaths bson.D           `bson:"disambiguatedPaths,omitempty"`
}

// TruncatedArray is an array shortened to NewSize elements.
type TruncatedArray struct {
	Field   string `bson:"field"`
	NewSize int32  `bson:"newSize"`
}

// Diff computes the update description that turns prev into next. Both
// are documents with the same _id. Embedded documents are compared field
// by field, arrays element by element (a shorter array is truncated, its
// changed elements set by index); any other change sets the field.
func Diff(prev, next bson.D) *UpdateDescription {
	d := differ{u: &UpdateDescription{UpdatedFields: bson.D{}, RemovedFields: []string{}, TruncatedArrays: []TruncatedArray{}}}
	d.docs("", prev, next)
	return d.u
}

// differ computes an update description; path holds the parts of the
// path being compared.
type differ struct {
	u    *UpdateDescription
	path paths
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func (d *differ) set(p string, v any) {
	d.u.UpdatedFields = append(d.u.UpdatedFields, bson.E{Key: p, Value: v})
	d.disambiguate(p)
}

func (d *differ) docs(prefix string, prev, next bson.D) {
	old := make(map[string]any, len(prev))
	for _, e := range prev {
		old[e.Key] = e.Value
	}
	seen := make(map[string]bool, len(next))
	for _, e := range next {
		seen[e.Key] = true
		p := join(prefix, e.Key)
		d.path.pushField(e.Key)
		if ov, ok := old[e.Key]; ok {
			d.values(p, ov, e.Value)
		} else {
			d.set(p, e.Value)
		}
		d.path.pop()
	}
	for _, e := range prev {
		if !seen[e.Key] {
			p := join(prefix, e.Key)
			d.u.RemovedFields = append(d.u.RemovedFields, p)
			d.path.pushField(e.Key)
			d.disambiguate(p)
			d.path.pop()
		}
	}
}

func (d *differ) values(p string, ov, nv any) {
	switch n := nv.(type) {
	case bson.D:
		if o, ok := ov.(bson.D); ok {
			d.docs(p, o, n)
			return
		}
	case bson.A:
		if o, ok := ov.(bson.A); ok {
			d.arrays(p, o, n)
			return
		}
	}
	if !equal(ov, nv) {
		d.set(p, nv)
	}
}

func (d *differ) arrays(p string, prev, next bson.A) {
	if len(next) < len(prev) {
		d.u.TruncatedArrays = append(d.u.TruncatedArrays, TruncatedArray{Field: p, NewSize: int32(len(next))})
		d.disambiguate(p)
	}
	for i, nv := range next {
		ip := p + "." + strconv.Itoa(i)
		d.path.pushIndex(i)
		if i >= len(prev) {
			d.set(ip, nv)
		} else {
			d.values(ip, prev[i], nv)
		}
		d.path.pop()
	}
}

// equal compares two BSON values by their encodings: same type and same
// bytes.
func equal(a, b any) bool {
	ta, ra, err1 := bson.MarshalValue(a)
	tb, rb, err2 := bson.MarshalValue(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return ta == tb && string(ra) == string(rb)
}
