package admin_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mayfly/mayfly/internal/admin"
)

// fakeSet is a replica set of raft addresses; primary false makes changes
// fail as on a secondary.
type fakeSet struct {
	mu      sync.Mutex
	members []string
	primary bool
}

func (f *fakeSet) Replicas() []admin.Replica {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []admin.Replica
	for i, m := range f.members {
		state := "SECONDARY"
		if i == 0 {
			state = "PRIMARY"
		}
		out = append(out, admin.Replica{ID: m, RaftAddr: m, State: state, Self: i == 0})
	}
	return out
}

func (f *fakeSet) AddReplica(addr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.primary {
		return &admin.ErrNotPrimary{Primary: "127.0.0.1:7001"}
	}
	f.members = append(f.members, addr)
	return nil
}

func (f *fakeSet) RemoveReplica(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.primary {
		return &admin.ErrNotPrimary{}
	}
	f.members = slices.DeleteFunc(f.members, func(m string) bool { return m == id })
	return nil
}

// replicaEnv serves /v1/replicas over set with tokens from content.
func replicaEnv(t *testing.T, set *fakeSet, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := admin.OpenTokenFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := admin.NewServer(admin.Options{Logger: slog.New(slog.DiscardHandler), Tokens: tokens})
	if err := admin.MountReplicas(s, admin.ReplicaOptions{Source: set, Tokens: tokens, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return "http://" + ln.Addr().String()
}

func ids(rs []admin.Replica) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// wantReplicaAPIError checks that err is an API error with code.
func wantReplicaAPIError(t *testing.T, err error, code string) {
	t.Helper()
	var ae *admin.APIError
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

// Ensure that /v1/replicas lists, adds and removes members through the
// typed client, that replicas.list and replicas.update guard it, and that
// a member that is not primary refuses changes with FAILED_PRECONDITION.
func TestReplicasAPI(t *testing.T) {
	const (
		reader = "reader-0123456789abcdef"
		root   = "root-0123456789abcdef"
	)
	set := &fakeSet{members: []string{"127.0.0.1:7001", "127.0.0.1:7002"}, primary: true}
	url := replicaEnv(t, set, reader+" replicas.list\n"+root+" *\n")
	ctx := t.Context()
	client := func(tok string) *admin.Client {
		c, err := admin.NewClient(url, tok)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	rd, rt := client(reader), client(root)

	got, err := rd.ListReplicas(ctx)
	if err != nil || !slices.Equal(ids(got), []string{"127.0.0.1:7001", "127.0.0.1:7002"}) || got[0].State != "PRIMARY" || !got[0].Self {
		t.Fatalf("list: %+v (%v)", got, err)
	}
	_, err = rd.AddReplica(ctx, "127.0.0.1:7003")
	wantReplicaAPIError(t, err, admin.CodePermissionDenied)
	_, err = client("").ListReplicas(ctx)
	wantReplicaAPIError(t, err, admin.CodeUnauthenticated)

	got, err = rt.AddReplica(ctx, "127.0.0.1:7003")
	if err != nil || !slices.Equal(ids(got), []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}) {
		t.Fatalf("add: %v (%v)", ids(got), err)
	}
	got, err = rt.RemoveReplica(ctx, "127.0.0.1:7002")
	if err != nil || !slices.Equal(ids(got), []string{"127.0.0.1:7001", "127.0.0.1:7003"}) {
		t.Fatalf("remove: %v (%v)", ids(got), err)
	}
	_, err = rt.RemoveReplica(ctx, "127.0.0.1:7002")
	wantReplicaAPIError(t, err, admin.CodeNotFound)

	set.mu.Lock()
	set.primary = false
	set.mu.Unlock()
	_, err = rt.AddReplica(ctx, "127.0.0.1:7004")
	wantReplicaAPIError(t, err, admin.CodeFailedPrecondition)
	_, err = rt.RemoveReplica(ctx, "127.0.0.1:7003")
	wantReplicaAPIError(t, err, admin.CodeFailedPrecondition)
}
