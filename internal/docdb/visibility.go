package docdb

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// Strict visibility: a document is expired, and so invisible to every read
// path, as soon as one TTL index of its collection (or the TTL policy of its
// collection group) says so, whether or not the sweeper has deleted it yet.
// The rule is MongoDB's TTL rule evaluated at read time (the TTL rule of the
// collection's metadata, and the policy's rule). The check reads the
// document itself, not the index, so it is exact at the instant it runs and
// costs nothing for collections without TTL indexes.

// visibility is the expiry check of one operation: the collection's
// metadata and the instant the operation reads at.
type visibility struct {
	meta   *catalog.CollMeta
	nowMs  int64
	strict bool
	// policy is the TTL policy of the collection's group; nil when none.
	policy *policy.Rule
}

// newVisibility returns the check for an operation on meta starting now.
// Cursors re-evaluate now on every Next (see cursor.go), so a getMore never
// returns what expired since the find.
func (e *Engine) newVisibility(meta *catalog.CollMeta) visibility {
	rule := e.pol.RuleFor(meta.Name)
	return visibility{
		meta:   meta,
		nowMs:  e.opts.Now().UnixMilli(),
		strict: e.opts.Visibility == VisibilityStrict && (meta.HasTTL() || rule != nil),
		policy: rule,
	}
}

// Hides reports whether doc must be hidden (plan.Visibility).
func (v visibility) Hides(doc bson.D) bool {
	return v.strict && (v.meta.Expired(doc, v.nowMs) || v.policy.Expired(doc, v.nowMs))
}

// refresh moves the check's instant to now.
func (v *visibility) refresh(now time.Time) { v.nowMs = now.UnixMilli() }

// expiry returns why doc is hidden: the TTL index (or clustered TTL) or
// the TTL policy under which it expired, with its due time; ok is false
// when it is not hidden.
func (v visibility) expiry(doc bson.D) (why change.Expiry, ok bool) {
	if !v.strict {
		return why, false
	}
	for _, ix := range v.meta.Indexes {
		if due, ok := ix.DueTime(doc); ok && due <= v.nowMs {
			return change.Expiry{Source: change.SourceTTL, Name: ix.Name, DueAt: due}, true
		}
	}
	if ix := v.meta.ClusteredTTLIndex(); ix != nil {
		if due, ok := ix.DueTime(doc); ok && due <= v.nowMs {
			return change.Expiry{Source: change.SourceTTL, Name: ix.Name, DueAt: due}, true
		}
	}
	if v.policy != nil {
		if due, ok := v.policy.DueTime(doc); ok && due <= v.nowMs {
			return change.Expiry{Source: change.SourcePolicy, Name: v.policy.Group(), DueAt: due}, true
		}
	}
	return why, false
}

// removeHidden deletes a document that strict visibility hides, as the
// expiry engine would, and tells the hooks it expired.
func (w *writer) removeHidden(sd *stored.Doc) error {
	if why, ok := w.vis.expiry(sd.Doc); ok {
		return w.removeExpired(sd, why)
	}
	return w.remove(sd)
}
