package events

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// UpdateDescription is what an update changed: the fields set (by dotted
// path), the fields removed, and the arrays shortened.
type UpdateDescription struct {
	UpdatedFields   bson.D           `bson:"updatedFields"`
	RemovedFields   []string         `bson:"removedFields"`
	TruncatedArrays []TruncatedArray `bson:"truncatedArrays"`
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
	u := &UpdateDescription{UpdatedFields: bson.D{}, RemovedFields: []string{}, TruncatedArrays: []TruncatedArray{}}
	diffDocs(u, "", prev, next)
	return u
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func diffDocs(u *UpdateDescription, prefix string, prev, next bson.D) {
	old := make(map[string]any, len(prev))
	for _, e := range prev {
		old[e.Key] = e.Value
	}
	seen := make(map[string]bool, len(next))
	for _, e := range next {
		seen[e.Key] = true
		p := join(prefix, e.Key)
		ov, ok := old[e.Key]
		if !ok {
			u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: p, Value: e.Value})
			continue
		}
		diffValues(u, p, ov, e.Value)
	}
	for _, e := range prev {
		if !seen[e.Key] {
			u.RemovedFields = append(u.RemovedFields, join(prefix, e.Key))
		}
	}
}

func diffValues(u *UpdateDescription, p string, ov, nv any) {
	switch n := nv.(type) {
	case bson.D:
		if o, ok := ov.(bson.D); ok {
			diffDocs(u, p, o, n)
			return
		}
	case bson.A:
		if o, ok := ov.(bson.A); ok {
			diffArrays(u, p, o, n)
			return
		}
	}
	if !equal(ov, nv) {
		u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: p, Value: nv})
	}
}

func diffArrays(u *UpdateDescription, p string, prev, next bson.A) {
	if len(next) < len(prev) {
		u.TruncatedArrays = append(u.TruncatedArrays, TruncatedArray{Field: p, NewSize: int32(len(next))})
	}
	for i, nv := range next {
		ip := p + "." + strconv.Itoa(i)
		if i >= len(prev) {
			u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: ip, Value: nv})
			continue
		}
		diffValues(u, ip, prev[i], nv)
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
