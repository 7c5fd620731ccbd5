package admin

import (
	"net/http"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/policy"
)

// Operation is a long-running operation as the API reports it.
type Operation struct {
	// ID names the operation ("op-12").
	ID string `json:"id"`
	// Type is ENABLE_TTL, DISABLE_TTL or UPDATE_TTL_OFFSET.
	Type string `json:"type"`
	// CollectionGroup, Field and ExpirationOffset are the policy it
	// changes.
	CollectionGroup  string `json:"collectionGroup"`
	Field            string `json:"field"`
	ExpirationOffset string `json:"expirationOffset"`
	// State is CREATING while an enable builds, then ACTIVE; NEEDS_REPAIR
	// when it failed; DISABLED for a disable, or for an enable that a later
	// change superseded.
	State string `json:"state"`
	// Done is true once the operation has ended.
	Done bool `json:"done"`
	// Error says why it failed or was superseded.
	Error string `json:"error,omitempty"`
	// StartTime and EndTime bound it; EndTime is absent while it runs.
	StartTime time.Time  `json:"startTime"`
	EndTime   *time.Time `json:"endTime,omitempty"`
	// Progress is its progress estimate.
	Progress Progress `json:"progress"`
}

// Progress is an operation's progress estimate.
type Progress struct {
	// DocumentsScanned of DocumentsEstimate have been indexed.
	DocumentsScanned  int64 `json:"documentsScanned"`
	DocumentsEstimate int64 `json:"documentsEstimate"`
	// ExpiredFound counts the scanned documents already expired.
	ExpiredFound int64 `json:"expiredFound"`
	// Deleted counts the documents the policy deleted while the operation
	// ran.
	Deleted int64 `json:"deleted"`
}

// operationJSON converts an operation.
func operationJSON(op policy.Operation) Operation {
	out := Operation{
		ID:               op.ID,
		Type:             string(op.Type),
		CollectionGroup:  op.Group,
		Field:            op.Field,
		ExpirationOffset: policy.FormatOffset(op.Offset),
		State:            string(op.State),
		Done:             op.Done,
		Error:            op.Error,
		StartTime:        op.Start,
		Progress: Progress{
			DocumentsScanned:  op.Progress.DocumentsScanned,
			DocumentsEstimate: op.Progress.DocumentsEstimate,
			ExpiredFound:      op.Progress.ExpiredFound,
			Deleted:           op.Progress.Deleted,
		},
	}
	if op.Done {
		end := op.End
		out.EndTime = &end
	}
	return out
}

func (a *api) listOperations(w http.ResponseWriter, r *http.Request) {
	ops, err := a.store.ListOperations(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := struct {
		Operations []Operation `json:"operations"`
	}{Operations: make([]Operation, 0, len(ops))}
	for _, op := range ops {
		out.Operations = append(out.Operations, operationJSON(op))
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getOperation(w http.ResponseWriter, r *http.Request) {
	op, err := a.store.GetOperation(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, operationJSON(op))
}
