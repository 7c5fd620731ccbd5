package admin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// newStore opens a document database on an in-memory store.
func newStore(t *testing.T) *docdb.Engine {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	db, err := docdb.Open(docdb.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		st.Close()
	})
	return db
}

// fakeStats reports fixed statistics for one policy source.
type fakeStats struct{ src expiry.SourceStats }

func (f fakeStats) Stats() expiry.Stats { return expiry.Stats{Sources: []expiry.SourceStats{f.src}} }

// apiEnv is an admin server with the /v1/ API on a real document database.
type apiEnv struct {
	db     *docdb.Engine
	url    string
	tokens *admin.TokenFile // nil without a token file
}

func newAPIEnv(t *testing.T, tokenFile string) *apiEnv {
	t.Helper()
	return newAPIEnvWith(t, tokenFile, false)
}

// newAPIEnvWith is newAPIEnv; requireAuthForMetrics puts the probes and
// /metrics behind the tokens too.
func newAPIEnvWith(t *testing.T, tokenFile string, requireAuthForMetrics bool) *apiEnv {
	t.Helper()
	var tokens *admin.TokenFile
	if tokenFile != "" {
		var err error
		if tokens, err = admin.OpenTokenFile(tokenFile, nil); err != nil {
			t.Fatal(err)
		}
	}
	db := newStore(t)
	lag := expiry.Histogram{Bounds: expiry.LagBounds(), Counts: make([]uint64, len(expiry.LagBounds())+1), Count: 3, Sum: 3 * time.Second, Max: 2 * time.Second}
	lag.Counts[len(lag.Counts)-2] = 3
	stats := fakeStats{expiry.SourceStats{Name: "policy:sessions.expireAt", Kind: expiry.KindPolicy, DeletedItems: 3, BacklogKnown: true, Backlog: 1, Lag: lag}}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	s := admin.NewServer(admin.Options{Gatherer: reg, Logger: slog.New(slog.DiscardHandler), Tokens: tokens, RequireAuthForMetrics: requireAuthForMetrics})
	if err := admin.MountPolicies(s, admin.PolicyOptions{Store: db, Stats: stats, Tokens: tokens, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return &apiEnv{db: db, url: "http://" + ln.Addr().String(), tokens: tokens}
}

// raw sends a request and returns the status, body and headers.
func (e *apiEnv) raw(t *testing.T, method, path, body, token string) (int, string, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// insertSessions inserts n documents into app.sessions, the first expired
// of them an hour in the past, the others an hour ahead.
func (e *apiEnv) insertSessions(t *testing.T, n, expired int) {
	t.Helper()
	now := time.Now()
	var docs []bson.Raw
	for i := range n {
		at := now.Add(time.Hour)
		if i < expired {
			at = now.Add(-time.Hour)
		}
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "expireAt", Value: bson.NewDateTimeFromTime(at)}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, raw)
	}
	res, err := e.db.Insert(t.Context(), "app", "sessions", docdb.InsertRequest{Documents: docs, Ordered: true})
	if err != nil || len(res.WriteErrors) > 0 {
		t.Fatalf("insert: %v %v", err, res.WriteErrors)
	}
}

// client returns a client with token.
func (e *apiEnv) client(t *testing.T, token string) *admin.Client {
	t.Helper()
	c, err := admin.NewClient(e.url, token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enable enables the policy on sessions.expireAt and waits for its
// operation; it returns the operation's id.
func (e *apiEnv) enable(t *testing.T, token string) string {
	t.Helper()
	c := e.client(t, token)
	op, err := c.UpdatePolicy(t.Context(), "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.WaitOperation(t.Context(), op.ID, 5*time.Millisecond, nil)
	if err != nil || done.State != "ACTIVE" {
		t.Fatalf("operation %+v, %v", done, err)
	}
	return op.ID
}

// wantAPIError asserts that err is an *APIError with status and code whose
// message contains msg.
func wantAPIError(t *testing.T, err error, status int, code, msg string) {
	t.Helper()
	var ae *admin.APIError
	if !errors.As(err, &ae) || ae.Status != status || ae.Code != code || !strings.Contains(ae.Message, msg) {
		t.Fatalf("got %v, want %d %s containing %q", err, status, code, msg)
	}
}

// Ensure that the typed client drives the whole policy API: enable with an
// offset, wait for the operation, list and get policies with their engine
// statistics, dry runs, offset changes, disable, operations, and the error
// replies of each failure.
func TestPolicyAPI(t *testing.T) {
	env := newAPIEnv(t, "")
	env.insertSessions(t, 5, 2)
	c := env.client(t, "")
	ctx := t.Context()

	dry, err := c.DryRunPolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true), ExpirationOffset: "30m"})
	if err != nil || dry.WouldDelete != 2 || dry.DocumentsScanned != 5 || dry.Collections != 1 || dry.ExpirationOffset != "30m0s" ||
		dry.OldestExpiry == nil || dry.NewestExpiry == nil || dry.EstimatedDeleteSeconds != nil {
		t.Fatalf("dry run %+v, %v", dry, err)
	}
	if pols, err := c.ListPolicies(ctx, ""); err != nil || len(pols) != 0 {
		t.Fatalf("a dry run created %+v, %v", pols, err)
	}

	op, err := c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true), ExpirationOffset: "30m"})
	if err != nil || op.Type != "ENABLE_TTL" || op.CollectionGroup != "sessions" || op.ExpirationOffset != "30m0s" || op.StartTime.IsZero() {
		t.Fatalf("enable = %+v, %v", op, err)
	}
	var seen []admin.Operation
	done, err := c.WaitOperation(ctx, op.ID, 5*time.Millisecond, func(o admin.Operation) { seen = append(seen, o) })
	if err != nil || !done.Done || done.State != "ACTIVE" || done.EndTime == nil || done.Progress.DocumentsScanned != 5 || done.Progress.ExpiredFound != 2 || len(seen) == 0 {
		t.Fatalf("finished operation %+v, %v", done, err)
	}

	pol, err := c.GetPolicy(ctx, "sessions")
	if err != nil {
		t.Fatal(err)
	}
	if pol.State != "ACTIVE" || pol.Field != "expireAt" || pol.ExpirationOffset != "30m0s" || pol.ExpirationOffsetSeconds != 1800 ||
		pol.Source != "policy:sessions.expireAt" || pol.Operation != op.ID || pol.Collections != 1 || pol.IndexedCollections != 1 {
		t.Fatalf("policy %+v", pol)
	}
	if pol.Stats == nil || pol.Stats.DeletedDocuments != 3 || pol.Stats.Backlog == nil || *pol.Stats.Backlog != 1 ||
		pol.Stats.Lag.Count != 3 || pol.Stats.Lag.MaxSeconds != 2 {
		t.Fatalf("policy stats %+v", pol.Stats)
	}
	if pols, err := c.ListPolicies(ctx, "sessions"); err != nil || len(pols) != 1 || pols[0].CollectionGroup != "sessions" {
		t.Fatalf("list of the group: %+v, %v", pols, err)
	}
	if pols, err := c.ListPolicies(ctx, "carts"); err != nil || len(pols) != 0 {
		t.Fatalf("list of another group: %+v, %v", pols, err)
	}

	upd, err := c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true), ExpirationOffset: "7d"})
	if err != nil || upd.Type != "UPDATE_TTL_OFFSET" || !upd.Done || upd.ExpirationOffset != "7d" {
		t.Fatalf("offset change %+v, %v", upd, err)
	}

	// Failures.
	_, err = c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "other", Enabled: ptr(true)})
	wantAPIError(t, err, 409, admin.CodeFailedPrecondition, `collection group "sessions" already has a TTL policy on field "expireAt"`)
	_, err = c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true), ExpirationOffset: "soon"})
	wantAPIError(t, err, 400, admin.CodeInvalidArgument, `expiration offset "soon"`)
	_, err = c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt"})
	wantAPIError(t, err, 400, admin.CodeInvalidArgument, "enabled is required")
	_, err = c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(false), ExpirationOffset: "1h"})
	wantAPIError(t, err, 400, admin.CodeInvalidArgument, "expirationOffset applies only when enabling")
	_, err = c.UpdatePolicy(ctx, "$bad", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(true)})
	wantAPIError(t, err, 400, admin.CodeInvalidArgument, "contains '$'")
	_, err = c.GetPolicy(ctx, "carts")
	wantAPIError(t, err, 404, admin.CodeNotFound, `collection group "carts" has no TTL policy`)
	_, err = c.GetOperation(ctx, "op-999")
	wantAPIError(t, err, 404, admin.CodeNotFound, "op-999")
	_, err = c.DryRunPolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(false)})
	wantAPIError(t, err, 400, admin.CodeInvalidArgument, "dryRun previews enabling")
	status, body, _ := env.raw(t, "PATCH", "/v1/ttl/policies/sessions", `{"field":"expireAt","enabled":true,"bogus":1}`, "")
	if status != 400 || !strings.Contains(body, `unknown field \"bogus\"`) {
		t.Fatalf("unknown JSON field: %d %s", status, body)
	}
	status, body, _ = env.raw(t, "GET", "/v1/nothing", "", "")
	if status != 404 || !strings.Contains(body, `"code": "NOT_FOUND"`) || !strings.Contains(body, "no endpoint GET /v1/nothing") {
		t.Fatalf("unknown endpoint: %d %s", status, body)
	}

	dis, err := c.UpdatePolicy(ctx, "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(false)})
	if err != nil || dis.Type != "DISABLE_TTL" || dis.State != "DISABLED" || !dis.Done {
		t.Fatalf("disable %+v, %v", dis, err)
	}
	pol, err = c.GetPolicy(ctx, "sessions")
	if err != nil || pol.State != "DISABLED" || pol.Stats != nil {
		t.Fatalf("disabled policy %+v, %v", pol, err)
	}
	ops, err := c.ListOperations(ctx)
	if err != nil || len(ops) != 3 || ops[0].ID != dis.ID || ops[2].ID != op.ID {
		t.Fatalf("operations %+v, %v", ops, err)
	}
	got, err := c.GetOperation(ctx, op.ID)
	if err != nil || got.ID != op.ID || got.State != "ACTIVE" {
		t.Fatalf("operation %+v, %v", got, err)
	}
}

// Ensure that each error of the document model maps to its code and
// status, and that the client understands replies that are not the API's
// JSON.
func TestErrorMapping(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
		msg    string
	}{
		{fmt.Errorf("%w: bad group", policy.ErrInvalid), 400, admin.CodeInvalidArgument, "invalid TTL policy: bad group"},
		{fmt.Errorf("%w: x", policy.ErrNotFound), 404, admin.CodeNotFound, "TTL policy not found: x"},
		{fmt.Errorf("%w: x", policy.ErrOperationNotFound), 404, admin.CodeNotFound, "operation not found: x"},
		{fmt.Errorf("%w: x", policy.ErrConflict), 409, admin.CodeFailedPrecondition, "TTL policy conflict: x"},
		{fmt.Errorf("%w: x", policy.ErrTooMany), 429, admin.CodeResourceExhausted, "too many TTL policies: x"},
		{policy.ErrClosed, 503, admin.CodeUnavailable, "the server is stopping"},
		{errors.New("disk on fire"), 500, admin.CodeInternal, "disk on fire"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			s := admin.NewServer(admin.Options{Logger: slog.New(slog.DiscardHandler)})
			if err := admin.MountPolicies(s, admin.PolicyOptions{Store: failingStore{c.err}, Logger: slog.New(slog.DiscardHandler)}); err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go s.Serve(ln)
			defer s.Shutdown(context.Background())
			cl, err := admin.NewClient(ln.Addr().String(), "")
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.ListPolicies(t.Context(), "")
			wantAPIError(t, err, c.status, c.code, c.msg)
			if strings.Contains(err.Error(), "docdb: ") {
				t.Errorf("message keeps the package prefix: %v", err)
			}
		})
	}
	// A reply that is not the API's JSON.
	srv := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "teapot says no", http.StatusForbidden)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	cl, _ := admin.NewClient("http://"+ln.Addr().String()+"/", "")
	_, err = cl.GetOperation(t.Context(), "op-1")
	wantAPIError(t, err, 403, admin.CodePermissionDenied, "teapot says no")
	for _, bad := range []string{"ftp://x", "http://", "::"} {
		if _, err := admin.NewClient(bad, ""); err == nil {
			t.Errorf("NewClient(%q) accepted", bad)
		}
	}
}

// failingStore fails every call with err.
type failingStore struct{ err error }

func (f failingStore) ListPolicies(context.Context) ([]policy.Policy, error) { return nil, f.err }
func (f failingStore) GetPolicy(context.Context, string) (policy.Policy, error) {
	return policy.Policy{}, f.err
}
func (f failingStore) UpdatePolicy(context.Context, policy.Update) (policy.Operation, error) {
	return policy.Operation{}, f.err
}
func (f failingStore) DryRunPolicy(context.Context, policy.Update) (policy.EnableDryRun, error) {
	return policy.EnableDryRun{}, f.err
}
func (f failingStore) ListOperations(context.Context) ([]policy.Operation, error) { return nil, f.err }
func (f failingStore) GetOperation(context.Context, string) (policy.Operation, error) {
	return policy.Operation{}, f.err
}
