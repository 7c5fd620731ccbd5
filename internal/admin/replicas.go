package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
)

// The replica set membership API:
//
//	GET    /v1/replicas       replicas.list    {"replicas": [Replica...]}
//	POST   /v1/replicas       replicas.update  AddReplicaRequest -> {"replicas": [...]}
//	DELETE /v1/replicas/{id}  replicas.update  {"replicas": [...]}
//
// A member's id is its raft address. Adding and removing are done by the
// primary: another member answers FAILED_PRECONDITION naming it.

// Replica is one member of the replica set as the API reports it.
type Replica struct {
	// ID is the member's id, its raft address.
	ID string `json:"id"`
	// RaftAddr, MongoAddr and RespAddr are its addresses; the client
	// addresses are empty while the member is unreachable.
	RaftAddr  string `json:"raftAddr"`
	MongoAddr string `json:"mongoAddr,omitempty"`
	RespAddr  string `json:"respAddr,omitempty"`
	// State is PRIMARY, SECONDARY or UNREACHABLE.
	State string `json:"state"`
	// Self is the member that answered.
	Self bool `json:"self"`
	// AppliedIndex is the last raft log entry it applied.
	AppliedIndex uint64 `json:"appliedIndex"`
}

// AddReplicaRequest is the body of POST /v1/replicas.
type AddReplicaRequest struct {
	// ID, when set, must equal RaftAddr.
	ID string `json:"id,omitempty"`
	// RaftAddr is the new member's --raft-addr.
	RaftAddr string `json:"raftAddr"`
}

// ErrNotPrimary is returned by a ReplicaSource asked to change the set on
// a member that is not primary; Primary names the primary when known.
type ErrNotPrimary struct{ Primary string }

func (e *ErrNotPrimary) Error() string {
	if e.Primary == "" {
		return "this member is not the primary, and no primary is known"
	}
	return "this member is not the primary; send the request to the primary's admin address (its raft address is " + e.Primary + ")"
}

// ReplicaSource is the replica set the API manages.
type ReplicaSource interface {
	Replicas() []Replica
	AddReplica(raftAddr string) error
	RemoveReplica(id string) error
}

// ReplicaOptions configure MountReplicas.
type ReplicaOptions struct {
	// Source is the set. Required.
	Source ReplicaSource
	// Tokens, when set, make the endpoints require a bearer token.
	Tokens *TokenFile
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// MountReplicas adds the /v1/replicas endpoints to s.
func MountReplicas(s *Server, opts ReplicaOptions) error {
	if opts.Source == nil {
		return errors.New("admin: MountReplicas without a replica set")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &replicaAPI{src: opts.Source, log: opts.Logger}
	s.Handle("GET /v1/replicas", opts.Tokens.require(PermReplicasList, http.HandlerFunc(h.list)))
	s.Handle("POST /v1/replicas", opts.Tokens.require(PermReplicasUpdate, http.HandlerFunc(h.add)))
	s.Handle("DELETE /v1/replicas/{id}", opts.Tokens.require(PermReplicasUpdate, http.HandlerFunc(h.remove)))
	return nil
}

type replicaAPI struct {
	src ReplicaSource
	log *slog.Logger
}

// replicaList is the body of every success reply.
type replicaList struct {
	Replicas []Replica `json:"replicas"`
}

func (h *replicaAPI) reply(w http.ResponseWriter, status int) {
	out := replicaList{Replicas: h.src.Replicas()}
	if out.Replicas == nil {
		out.Replicas = []Replica{}
	}
	writeJSON(w, status, out)
}

func (h *replicaAPI) list(w http.ResponseWriter, r *http.Request) { h.reply(w, http.StatusOK) }

func (h *replicaAPI) add(w http.ResponseWriter, r *http.Request) {
	var req AddReplicaRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument, Message: "malformed request body: " + err.Error()})
		return
	}
	if req.RaftAddr == "" {
		writeError(w, &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument, Message: "raftAddr is required: the new member's --raft-addr"})
		return
	}
	if req.ID != "" && req.ID != req.RaftAddr {
		writeError(w, &APIError{Status: http.StatusBadRequest, Code: CodeInvalidArgument,
			Message: fmt.Sprintf("id %q must equal raftAddr %q: a member's id is its raft address", req.ID, req.RaftAddr)})
		return
	}
	if err := h.src.AddReplica(req.RaftAddr); err != nil {
		h.fail(w, r, err)
		return
	}
	h.reply(w, http.StatusOK)
}

func (h *replicaAPI) remove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	known := false
	for _, m := range h.src.Replicas() {
		known = known || m.ID == id
	}
	if !known {
		writeError(w, &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("no member %q in the replica set", id)})
		return
	}
	if err := h.src.RemoveReplica(id); err != nil {
		h.fail(w, r, err)
		return
	}
	h.reply(w, http.StatusOK)
}

func (h *replicaAPI) fail(w http.ResponseWriter, r *http.Request, err error) {
	var np *ErrNotPrimary
	if errors.As(err, &np) {
		writeError(w, &APIError{Status: http.StatusConflict, Code: CodeFailedPrecondition, Message: np.Error()})
		return
	}
	h.log.Error("admin API", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()})
}

// ListReplicas lists the replica set's members (GET /v1/replicas).
func (c *Client) ListReplicas(ctx context.Context) ([]Replica, error) {
	var out replicaList
	err := c.do(ctx, http.MethodGet, "/v1/replicas", nil, nil, &out)
	return out.Replicas, err
}

// AddReplica adds the member at raftAddr (POST /v1/replicas) and returns
// the members after it.
func (c *Client) AddReplica(ctx context.Context, raftAddr string) ([]Replica, error) {
	var out replicaList
	err := c.do(ctx, http.MethodPost, "/v1/replicas", nil, AddReplicaRequest{ID: raftAddr, RaftAddr: raftAddr}, &out)
	return out.Replicas, err
}

// RemoveReplica removes the member id (DELETE /v1/replicas/{id}) and
// returns the members after it.
func (c *Client) RemoveReplica(ctx context.Context, id string) ([]Replica, error) {
	var out replicaList
	err := c.do(ctx, http.MethodDelete, "/v1/replicas/"+url.PathEscape(id), nil, nil, &out)
	return out.Replicas, err
}
