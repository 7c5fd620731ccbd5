package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
)

// The /v1/ API: TTL policies and their long-running operations, in JSON.
//
//	GET   /v1/ttl/policies[?collectionGroup=G]  ttl.policies.list    {"policies": [Policy...]}
//	GET   /v1/ttl/policies/{group}              ttl.policies.get     Policy
//	PATCH /v1/ttl/policies/{group}              ttl.policies.update  UpdatePolicyRequest -> Operation, or DryRunResult with dryRun
//	GET   /v1/operations                        operations.list      {"operations": [Operation...]}, newest first
//	GET   /v1/operations/{id}                   operations.get       Operation
//	PATCH /v1/ttl/indexes/{source}              ttl.policies.update  UpdateTTLIndexRequest -> TTLIndexChange, or TTLIndexDryRun with dryRun (console_ttl.go)
//
// Every failure is {"error": {"code": CODE, "message": "..."}} with the
// HTTP status of the code (APIError). With a token file, each endpoint
// requires a bearer token granting its permission (Tokens); /healthz,
// /readyz, /metrics and the web console's read-only /v1/console/ endpoints
// (console.go) stay open unless RequireAuthForMetrics.

// Error codes of the API, as Google APIs name them.
const (
	CodeInvalidArgument    = "INVALID_ARGUMENT"    // 400: malformed request
	CodeUnauthenticated    = "UNAUTHENTICATED"     // 401: no or unknown token
	CodePermissionDenied   = "PERMISSION_DENIED"   // 403: the token lacks the permission
	CodeNotFound           = "NOT_FOUND"           // 404: no such policy, operation or endpoint
	CodeFailedPrecondition = "FAILED_PRECONDITION" // 409: a group has another TTL field enabled
	CodeResourceExhausted  = "RESOURCE_EXHAUSTED"  // 429: the 1,000 policy limit
	CodeInternal           = "INTERNAL"            // 500
	CodeUnavailable        = "UNAVAILABLE"         // 503: the server is stopping
)

// APIError is an error reply of the API; the client returns it for any
// reply that is not a success.
type APIError struct {
	// Status is the HTTP status.
	Status int `json:"-"`
	// Code is one of the Code constants.
	Code string `json:"code"`
	// Message says what went wrong, for people.
	Message string `json:"message"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// errorReply is the body of an error reply.
type errorReply struct {
	Error *APIError `json:"error"`
}

// writeJSON writes v as the JSON body of a reply with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // a failed write means the client went away
}

func writeError(w http.ResponseWriter, e *APIError) {
	writeJSON(w, e.Status, errorReply{Error: e})
}

// apiError classifies an error of the document model.
func apiError(err error) *APIError {
	var ae *APIError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, policy.ErrInvalid):
		return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument, Message: modelMessage(err)}
	case errors.Is(err, policy.ErrNotFound), errors.Is(err, policy.ErrOperationNotFound):
		return &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: modelMessage(err)}
	case errors.Is(err, policy.ErrConflict):
		return &APIError{Status: http.StatusConflict, Code: CodeFailedPrecondition, Message: modelMessage(err)}
	case errors.Is(err, policy.ErrTooMany):
		return &APIError{Status: http.StatusTooManyRequests, Code: CodeResourceExhausted, Message: modelMessage(err)}
	case errors.Is(err, policy.ErrClosed), errors.Is(err, context.Canceled):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the server is stopping"}
	}
	return &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
}

// modelMessage drops the package prefix of a document model error.
func modelMessage(err error) string {
	msg := err.Error()
	const prefix = "docdb: "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}

// PolicyStore is what the API serves: *docdb.Engine.
type PolicyStore interface {
	ListPolicies(ctx context.Context) ([]policy.Policy, error)
	GetPolicy(ctx context.Context, group string) (policy.Policy, error)
	UpdatePolicy(ctx context.Context, u policy.Update) (policy.Operation, error)
	DryRunPolicy(ctx context.Context, u policy.Update) (policy.EnableDryRun, error)
	ListOperations(ctx context.Context) ([]policy.Operation, error)
	GetOperation(ctx context.Context, id string) (policy.Operation, error)
}

// StatsSource gives the expiry engine's statistics: *expiry.Engine.
type StatsSource interface {
	Stats() expiry.Stats
}

// PolicyOptions configure MountPolicies.
type PolicyOptions struct {
	// Store serves the policies and operations. Required.
	Store PolicyStore
	// Stats, when set, adds each policy's deletions, lag and backlog.
	Stats StatsSource
	// Tokens, when set, make every /v1/ endpoint require a bearer token
	// (see Tokens).
	Tokens *TokenFile
	// Logger receives internal errors and token file warnings; nil means
	// slog.Default().
	Logger *slog.Logger
}

// MountPolicies adds the /v1/ API to s.
func MountPolicies(s *Server, opts PolicyOptions) error {
	if opts.Store == nil {
		return errors.New("admin: MountPolicies without a policy store")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	tokens := opts.Tokens
	a := &api{store: opts.Store, stats: opts.Stats, log: opts.Logger}
	routes := []struct {
		pattern string
		perm    Permission
		h       http.HandlerFunc
	}{
		{"GET /v1/ttl/policies", PermPoliciesList, a.listPolicies},
		{"GET /v1/ttl/policies/{group}", PermPoliciesGet, a.getPolicy},
		{"PATCH /v1/ttl/policies/{group}", PermPoliciesUpdate, a.updatePolicy},
		{"GET /v1/operations", PermOperationsList, a.listOperations},
		{"GET /v1/operations/{id}", PermOperationsGet, a.getOperation},
	}
	for _, r := range routes {
		s.Handle(r.pattern, tokens.require(r.perm, r.h))
	}
	s.Handle("/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &APIError{Status: http.StatusNotFound, Code: CodeNotFound,
			Message: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path)})
	}))
	return nil
}

// api holds the handlers' dependencies.
type api struct {
	store PolicyStore
	stats StatsSource
	log   *slog.Logger
}

// fail writes err as an error reply, logging internal errors.
func (a *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	ae := apiError(err)
	if ae.Status == http.StatusInternalServerError {
		a.log.Error("admin API", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeError(w, ae)
}
