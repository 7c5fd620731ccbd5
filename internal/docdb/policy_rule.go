package docdb

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// policyRule is an enabled policy as the read and write paths use it: the
// field to read and the offset to add. Rules are immutable; a change
// publishes a new one.
type policyRule struct {
	group, field string
	path         []string
	offsetMs     int64
}

func newPolicyRule(group, field string, offsetMs int64) *policyRule {
	return &policyRule{group: group, field: field, path: catalog.SplitPath(field), offsetMs: offsetMs}
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

// dueTime returns when doc expires under the rule (Unix ms); ok is false
// when it never does.
func (r *policyRule) dueTime(doc bson.D) (int64, bool) {
	d, ok := earliestDate(doc, r.path)
	if !ok {
		return 0, false
	}
	return addMillis(d, r.offsetMs), true
}

// expired reports whether doc has expired at nowMs; a nil rule expires
// nothing.
func (r *policyRule) expired(doc bson.D, nowMs int64) bool {
	if r == nil {
		return false
	}
	due, ok := r.dueTime(doc)
	return ok && due <= nowMs
}

// addMillis adds a non-negative offset to ms, saturating.
func addMillis(ms, off int64) int64 {
	if ms > math.MaxInt64-off {
		return math.MaxInt64
	}
	return ms + off
}

// policyRuleFor returns the enabled policy of the collection group coll, or
// nil. It takes no lock.
func (p *policyManager) policyRuleFor(coll string) *policyRule {
	rules := p.rules.Load()
	if rules == nil {
		return nil
	}
	return (*rules)[coll]
}
