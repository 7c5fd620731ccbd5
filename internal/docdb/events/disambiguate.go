package events

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A dotted path of an update description is ambiguous when one of its
// parts, after the first, is a field name made of digits (with no leading
// zero: "1" but not "01") or when any part is a field name holding a dot:
// a reader cannot tell "a.1" the field "1" of a from element 1 of the
// array a. An array index alone leaves a path unambiguous. For every
// ambiguous path that an update sets, removes or truncates, the update
// description's DisambiguatedPaths gives its parts in order, field names
// as strings and array indexes as 32-bit integers, as MongoDB does under
// showExpandedEvents.

// pathPart is one part of the path a differ compares: a field name, or an
// array index; ambiguous says whether the path up to this part is.
type pathPart struct {
	name      string
	index     int
	isIndex   bool
	ambiguous bool
}

// paths is the stack of the parts of the path being compared.
type paths []pathPart

func (ps *paths) pushField(name string) {
	amb := len(*ps) > 0 && (*ps)[len(*ps)-1].ambiguous
	if !amb {
		amb = len(*ps) > 0 && strictNumeric(name) || strings.Contains(name, ".")
	}
	*ps = append(*ps, pathPart{name: name, ambiguous: amb})
}

func (ps *paths) pushIndex(i int) {
	amb := len(*ps) > 0 && (*ps)[len(*ps)-1].ambiguous
	*ps = append(*ps, pathPart{index: i, isIndex: true, ambiguous: amb})
}

func (ps *paths) pop() { *ps = (*ps)[:len(*ps)-1] }

// strictNumeric reports whether a field name is a number as an array
// index is written: digits, and no leading zero unless it is "0".
func strictNumeric(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// disambiguate records the parts of the path p being compared when it is
// ambiguous.
func (d *differ) disambiguate(p string) {
	ps := d.path
	if len(ps) == 0 || !ps[len(ps)-1].ambiguous {
		return
	}
	parts := make(bson.A, len(ps))
	for i, x := range ps {
		if x.isIndex {
			parts[i] = int32(x.index)
		} else {
			parts[i] = x.name
		}
	}
	d.u.DisambiguatedPaths = append(d.u.DisambiguatedPaths, bson.E{Key: p, Value: parts})
}
