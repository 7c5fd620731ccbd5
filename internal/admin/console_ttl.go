package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// A TTL index's expireAfterSeconds, previewed and changed from the
// console:
//
//	PATCH /v1/ttl/indexes/{source}   ttl.policies.update   UpdateTTLIndexRequest -> TTLIndexChange, or TTLIndexDryRun with dryRun
//
// {source} is the index's expiry source name (ttl_index:db.coll.index).
// The change is MongoDB's collMod of the index's expireAfterSeconds (for a
// clustered collection, of the collection's): metadata only, since due
// times are computed from the stored dates and the current value, so it
// is complete when the reply is sent. The preview is collMod's dry run:
// the documents that would become due at once, their due times and how
// long the sweeper would take to delete them.

// TTLIndexEditor changes TTL indexes: *docdb.Engine.
type TTLIndexEditor interface {
	ChangeTTLIndex(ctx context.Context, source string, secs int64, dryRun bool) (docdb.TTLIndexChange, error)
}

// maxExpireAfterSeconds is the largest expireAfterSeconds MongoDB accepts:
// the largest int32.
const maxExpireAfterSeconds = math.MaxInt32

// UpdateTTLIndexRequest is the body of PATCH /v1/ttl/indexes/{source}.
type UpdateTTLIndexRequest struct {
	// ExpireAfterSeconds is the new value, 0 to 2147483647. Required.
	ExpireAfterSeconds *float64 `json:"expireAfterSeconds"`
	// DryRun previews the change instead of making it.
	DryRun bool `json:"dryRun,omitempty"`
}

// TTLIndexDryRun is the reply of an update with dryRun.
type TTLIndexDryRun struct {
	Source     string `json:"source"`
	DB         string `json:"db"`
	Collection string `json:"collection"`
	Index      string `json:"index"`
	Field      string `json:"field"`
	// ExpireAfterSecondsOld is the index's value, ExpireAfterSecondsNew
	// the one previewed.
	ExpireAfterSecondsOld int64 `json:"expireAfterSecondsOld"`
	ExpireAfterSecondsNew int64 `json:"expireAfterSecondsNew"`
	// At is the instant the preview refers to.
	At time.Time `json:"at"`
	// WouldDelete counts the documents the change would make due at once
	// (not due at At today, due under the new value).
	WouldDelete int64 `json:"wouldDelete"`
	// OldestExpiry and NewestExpiry are the range of their due times under
	// the new value; null when WouldDelete is 0.
	OldestExpiry *time.Time `json:"oldestExpiry"`
	NewestExpiry *time.Time `json:"newestExpiry"`
	// EstimatedDeleteSeconds is how long deleting them would take at the
	// sweeper's current rate (capped by ttlMaxDeletesPerSecond); null when
	// no rate is known yet.
	EstimatedDeleteSeconds *float64 `json:"estimatedDeleteSeconds"`
}

// TTLIndexChange is the reply of an applied update: the collMod as an
// operation that ended when it was committed.
type TTLIndexChange struct {
	// Type is COLLMOD_EXPIRE_AFTER_SECONDS.
	Type       string `json:"type"`
	Source     string `json:"source"`
	DB         string `json:"db"`
	Collection string `json:"collection"`
	Index      string `json:"index"`
	// ExpireAfterSecondsOld and ExpireAfterSecondsNew are collMod's
	// expireAfterSeconds_old and expireAfterSeconds_new.
	ExpireAfterSecondsOld int64 `json:"expireAfterSecondsOld"`
	ExpireAfterSecondsNew int64 `json:"expireAfterSecondsNew"`
	// State is DONE and Done true: the change is committed.
	State     string    `json:"state"`
	Done      bool      `json:"done"`
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
}

// mountTTLIndexes adds PATCH /v1/ttl/indexes/{source}.
func (c *Console) mountTTLIndexes(s *Server) {
	s.Handle("PATCH /v1/ttl/indexes/{source}", c.opts.Tokens.require(PermPoliciesUpdate, http.HandlerFunc(c.updateTTLIndex)))
}

func (c *Console) updateTTLIndex(w http.ResponseWriter, r *http.Request) {
	var req UpdateTTLIndexRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, badRequest("request body: %v", err))
		return
	}
	secs, err := req.seconds()
	if err != nil {
		writeError(w, apiError(err))
		return
	}
	start := c.opts.Now()
	ch, err := c.opts.TTLIndexEditor.ChangeTTLIndex(r.Context(), r.PathValue("source"), secs, req.DryRun)
	if err != nil {
		c.fail(w, r, collModError(r.PathValue("source"), err))
		return
	}
	ix := ch.Index
	if req.DryRun {
		writeJSON(w, http.StatusOK, ttlDryRunJSON(ch))
		return
	}
	writeJSON(w, http.StatusOK, TTLIndexChange{
		Type: "COLLMOD_EXPIRE_AFTER_SECONDS", Source: ix.Source, DB: ix.DB, Collection: ix.Collection, Index: ix.Index,
		ExpireAfterSecondsOld: ch.Old, ExpireAfterSecondsNew: ch.New,
		State: "DONE", Done: true, StartTime: start, EndTime: c.opts.Now(),
	})
}

// seconds validates the new expireAfterSeconds as MongoDB's collMod does.
func (req UpdateTTLIndexRequest) seconds() (int64, error) {
	switch f := req.ExpireAfterSeconds; {
	case f == nil:
		return 0, badRequest("expireAfterSeconds is required")
	case *f < 0:
		return 0, badRequest("TTL index 'expireAfterSeconds' option cannot be less than 0")
	case *f > maxExpireAfterSeconds:
		return 0, badRequest("TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (%d), found %v", maxExpireAfterSeconds, *f)
	case *f != math.Trunc(*f):
		return 0, badRequest("expireAfterSeconds must be a whole number of seconds, not %v", *f)
	default:
		return int64(*f), nil
	}
}

// collModError classifies an error of collMod: MongoDB's codes become the
// API's, with MongoDB's message.
func collModError(source string, err error) error {
	me, ok := mongoerr.As(err)
	if !ok {
		return fmt.Errorf("collMod of %s: %w", source, err)
	}
	switch me.Code {
	case mongoerr.NamespaceNotFound, mongoerr.IndexNotFound:
		return &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: me.Message}
	case mongoerr.InvalidOptions, mongoerr.BadValue, mongoerr.InvalidNamespace:
		return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument, Message: me.Message}
	}
	return fmt.Errorf("collMod of %s: %w", source, err)
}

// ttlDryRunJSON converts a dry run.
func ttlDryRunJSON(ch docdb.TTLIndexChange) TTLIndexDryRun {
	ix, d := ch.Index, ch.Preview
	out := TTLIndexDryRun{At: d.At, Source: ix.Source, DB: ix.DB, Collection: ix.Collection, Index: ix.Index, Field: ix.Field,
		ExpireAfterSecondsOld: ch.Old, ExpireAfterSecondsNew: ch.New, WouldDelete: d.WouldExpire}
	if d.WouldExpire > 0 {
		oldest, newest := d.OldestDue.UTC(), d.NewestDue.UTC()
		out.OldestExpiry, out.NewestExpiry = &oldest, &newest
	}
	if d.Estimated {
		s := d.EstimatedDelete.Seconds()
		out.EstimatedDeleteSeconds = &s
	}
	return out
}
