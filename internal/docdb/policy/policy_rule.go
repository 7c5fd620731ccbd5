package policy

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// Rule is an enabled policy as the read and write paths use it: the
// field to read and the offset to add. Rules are immutable; a change
// publishes a new one.
type Rule struct {
	group, field string
	path         []string
	offsetMs     int64
}

func NewRule(group, field string, offsetMs int64) *Rule {
	return &Rule{group: group, field: field, path: catalog.SplitPath(field), offsetMs: offsetMs}
}

// earliestDate returns the earliest BSON Date that path yields in doc, read
// as a TTL index reads its key (arrays on the path are expanded); ok is
// false when there is none.
func earliestDate(doc bson.D, path []string) (ms int64, ok bool) {
	var kv catalog.KeyValues
	kv.Collect(doc, path, true)
	for _, v := range kv.Values {
		if d, isDate := v.(bson.DateTime); isDate && (!ok || int64(d) < ms) {
			ms, ok = int64(d), true
		}
	}
	return ms, ok
}

// DueTime returns when doc expires under the rule (Unix ms); ok is false
// when it never does.
func (r *Rule) DueTime(doc bson.D) (int64, bool) {
	d, ok := earliestDate(doc, r.path)
	if !ok {
		return 0, false
	}
	return addMillis(d, r.offsetMs), true
}

// Group returns the name of the collection group the rule belongs to.
func (r *Rule) Group() string { return r.group }

// Expired reports whether doc has expired at nowMs; a nil rule expires
// nothing.
func (r *Rule) Expired(doc bson.D, nowMs int64) bool {
	if r == nil {
		return false
	}
	due, ok := r.DueTime(doc)
	return ok && due <= nowMs
}

// addMillis adds a non-negative offset to ms, saturating.
func addMillis(ms, off int64) int64 {
	if ms > math.MaxInt64-off {
		return math.MaxInt64
	}
	return ms + off
}

// RuleFor returns the enabled policy of the collection group coll, or
// nil. It takes no lock.
func (p *Manager) RuleFor(coll string) *Rule {
	rules := p.rules.Load()
	if rules == nil {
		return nil
	}
	return (*rules)[coll]
}
