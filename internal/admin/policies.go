package admin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
)

// Policy is a TTL policy as the API reports it.
type Policy struct {
	// CollectionGroup is the collection name the policy applies to in every
	// database.
	CollectionGroup string `json:"collectionGroup"`
	// Field is the dotted path of the timestamp field.
	Field string `json:"field"`
	// State is CREATING, ACTIVE, NEEDS_REPAIR or DISABLED.
	State string `json:"state"`
	// ExpirationOffset is added to the field's time ("0s", "90s", "7d").
	ExpirationOffset string `json:"expirationOffset"`
	// ExpirationOffsetSeconds is the same offset in seconds.
	ExpirationOffsetSeconds float64 `json:"expirationOffsetSeconds"`
	// Operation is the id of the last operation that changed the policy.
	Operation string `json:"operation,omitempty"`
	// UpdateTime is when the policy last changed.
	UpdateTime time.Time `json:"updateTime"`
	// Source is the expiry source name that /metrics labels its deletions
	// and lag with (mayfly_expiry_source_deleted_total{source=...}).
	Source string `json:"source"`
	// Collections is the number of collections in the group, and
	// IndexedCollections those whose hidden index is built.
	Collections        int `json:"collections"`
	IndexedCollections int `json:"indexedCollections"`
	// Stats are the policy's deletions, lag and backlog since the server
	// started; absent for a disabled policy.
	Stats *PolicyStats `json:"stats,omitempty"`
}

// PolicyStats are the expiry engine's counters of one policy.
type PolicyStats struct {
	// DeletedDocuments counts the documents the policy deleted.
	DeletedDocuments int64 `json:"deletedDocuments"`
	// Backlog is the number of documents due but not yet deleted when last
	// counted; null when unknown.
	Backlog *int64 `json:"backlog"`
	// NextDue is when the earliest indexed document is due, if any.
	NextDue *time.Time `json:"nextDue,omitempty"`
	// Lag is the delay from expiry to deletion.
	Lag LagStats `json:"lag"`
}

// LagStats summarise a lag histogram.
type LagStats struct {
	Count      uint64  `json:"count"`
	P50Seconds float64 `json:"p50Seconds"`
	P99Seconds float64 `json:"p99Seconds"`
	MaxSeconds float64 `json:"maxSeconds"`
}

// UpdatePolicyRequest is the body of PATCH /v1/ttl/policies/{group}.
type UpdatePolicyRequest struct {
	// Field is the TTL field: the field to enable, or the policy's field to
	// disable.
	Field string `json:"field"`
	// Enabled turns the policy on (or changes its offset) or off. Required.
	Enabled *bool `json:"enabled"`
	// ExpirationOffset is the offset when enabling: a duration such as
	// "90s", "1h30m" or "7d"; empty means none.
	ExpirationOffset string `json:"expirationOffset,omitempty"`
	// DryRun previews enabling instead of doing it: the reply is a
	// DryRunResult and nothing changes.
	DryRun bool `json:"dryRun,omitempty"`
}

// DryRunResult is the reply of an update with dryRun.
type DryRunResult struct {
	CollectionGroup  string `json:"collectionGroup"`
	Field            string `json:"field"`
	ExpirationOffset string `json:"expirationOffset"`
	// Collections is the number of collections in the group, and
	// DocumentsScanned the documents examined.
	Collections      int   `json:"collections"`
	DocumentsScanned int64 `json:"documentsScanned"`
	// At is the instant the preview refers to.
	At time.Time `json:"at"`
	// WouldDelete is the number of documents enabling would make eligible
	// for deletion at once (documents no rule expires yet).
	WouldDelete int64 `json:"wouldDelete"`
	// OldestExpiry and NewestExpiry are the range of their expiry times;
	// null when WouldDelete is 0.
	OldestExpiry *time.Time `json:"oldestExpiry"`
	NewestExpiry *time.Time `json:"newestExpiry"`
	// EstimatedDeleteSeconds is how long deleting them would take at the
	// sweeper's current rate (capped by ttlMaxDeletesPerSecond); null when
	// no rate is known yet.
	EstimatedDeleteSeconds *float64 `json:"estimatedDeleteSeconds"`
}

// policyJSON converts a policy, adding its engine statistics.
func policyJSON(p policy.Policy, st *expiry.Stats) Policy {
	out := Policy{
		CollectionGroup:         p.Group,
		Field:                   p.Field,
		State:                   string(p.State),
		ExpirationOffset:        policy.FormatOffset(p.Offset),
		ExpirationOffsetSeconds: p.Offset.Seconds(),
		Operation:               p.Operation,
		UpdateTime:              p.UpdateTime,
		Source:                  p.Source,
		Collections:             p.Collections,
		IndexedCollections:      p.Indexed,
	}
	if st == nil || p.State == policy.Disabled {
		return out
	}
	src, ok := st.Source(p.Source)
	if !ok {
		return out
	}
	ps := &PolicyStats{
		DeletedDocuments: src.DeletedItems,
		Lag: LagStats{
			Count:      src.Lag.Count,
			P50Seconds: src.Lag.P50().Seconds(),
			P99Seconds: src.Lag.P99().Seconds(),
			MaxSeconds: src.Lag.Max.Seconds(),
		},
	}
	if src.BacklogKnown {
		n := src.Backlog
		ps.Backlog = &n
	}
	if src.HasNext {
		t := src.NextDue.UTC()
		ps.NextDue = &t
	}
	out.Stats = ps
	return out
}

// engineStats returns a stats snapshot, or nil without a source.
func (a *api) engineStats() *expiry.Stats {
	if a.stats == nil {
		return nil
	}
	st := a.stats.Stats()
	return &st
}

func (a *api) listPolicies(w http.ResponseWriter, r *http.Request) {
	pols, err := a.store.ListPolicies(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	group := r.URL.Query().Get("collectionGroup")
	st := a.engineStats()
	out := struct {
		Policies []Policy `json:"policies"`
	}{Policies: []Policy{}}
	for _, p := range pols {
		if group == "" || p.Group == group {
			out.Policies = append(out.Policies, policyJSON(p, st))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getPolicy(w http.ResponseWriter, r *http.Request) {
	p, err := a.store.GetPolicy(r.Context(), r.PathValue("group"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, policyJSON(p, a.engineStats()))
}

// maxBody bounds request bodies.
const maxBody = 1 << 20

func (a *api) updatePolicy(w http.ResponseWriter, r *http.Request) {
	var req UpdatePolicyRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		a.fail(w, r, badRequest("request body: %v", err))
		return
	}
	u, err := req.update(r.PathValue("group"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if req.DryRun {
		res, err := a.store.DryRunPolicy(r.Context(), u)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, dryRunJSON(res))
		return
	}
	op, err := a.store.UpdatePolicy(r.Context(), u)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, operationJSON(op))
}

func badRequest(format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...)}
}

// update validates the request and turns it into the model's form.
func (req UpdatePolicyRequest) update(group string) (policy.Update, error) {
	if req.Enabled == nil {
		return policy.Update{}, badRequest("enabled is required: true to enable the policy (or change its offset), false to disable it")
	}
	u := policy.Update{Group: group, Field: req.Field, Enable: *req.Enabled}
	switch {
	case !u.Enable && req.ExpirationOffset != "":
		return u, badRequest("expirationOffset applies only when enabling")
	case !u.Enable && req.DryRun:
		return u, badRequest("dryRun previews enabling a policy; disabling deletes nothing")
	case u.Enable && req.ExpirationOffset != "":
		off, err := policy.ParseOffset(req.ExpirationOffset)
		if err != nil {
			return u, err
		}
		u.Offset = off
	}
	return u, nil
}

// dryRunJSON converts a dry run.
func dryRunJSON(d policy.EnableDryRun) DryRunResult {
	out := DryRunResult{
		CollectionGroup:  d.Group,
		Field:            d.Field,
		ExpirationOffset: policy.FormatOffset(d.Offset),
		Collections:      d.Collections,
		DocumentsScanned: d.Scanned,
		At:               d.At,
		WouldDelete:      d.WouldExpire,
	}
	if d.WouldExpire > 0 {
		oldest, newest := d.OldestDue, d.NewestDue
		out.OldestExpiry, out.NewestExpiry = &oldest, &newest
	}
	if d.Estimated {
		s := d.EstimatedDelete.Seconds()
		out.EstimatedDeleteSeconds = &s
	}
	return out
}
