package integration_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// replicasCLI runs `mayfly replicas ARGS --server member` and returns its
// output and error.
func replicasCLI(t *testing.T, m *harness.Member, args ...string) (string, error) {
	t.Helper()
	full := append(append([]string{"replicas"}, args...), "--server", "http://"+m.HTTPAddr)
	out, err := exec.Command(harness.Binary(t), full...).CombinedOutput()
	return string(out), err
}

// replicaIDs lists the set's members as member m reports them.
func replicaIDs(t *testing.T, m *harness.Member) ([]string, map[string]string) {
	t.Helper()
	out, err := replicasCLI(t, m, "list", "--format", "json")
	if err != nil {
		t.Fatalf("replicas list: %v\n%s", err, out)
	}
	var rs []struct {
		ID, State string
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("replicas list --format json: %v\n%s", err, out)
	}
	var ids []string
	states := map[string]string{}
	for _, r := range rs {
		ids = append(ids, r.ID)
		states[r.ID] = r.State
	}
	slices.Sort(ids)
	return ids, states
}

// Ensure that `mayfly replicas` lists a three-member set from any member,
// that a secondary refuses to change it naming the primary, and that the
// primary removes a member and adds it back, after which it catches up.
func TestReplSetReplicasCLI(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	f := (p + 1) % 3
	var all []string
	for _, m := range set.Members {
		all = append(all, m.RaftAddr)
	}
	slices.Sort(all)
	ids, states := replicaIDs(t, set.Members[f])
	if !slices.Equal(ids, all) || states[set.Members[p].RaftAddr] != "PRIMARY" {
		t.Fatalf("list on a secondary: %v %v, want %v with %s PRIMARY", ids, states, all, set.Members[p].RaftAddr)
	}
	table, err := replicasCLI(t, set.Members[p], "list")
	if err != nil || !strings.Contains(table, "PRIMARY") || !strings.Contains(table, "SECONDARY") {
		t.Fatalf("replicas list table: %v\n%s", err, table)
	}

	out, err := replicasCLI(t, set.Members[f], "remove", set.Members[(p+2)%3].RaftAddr)
	if err == nil || !strings.Contains(out, "FAILED_PRECONDITION") || !strings.Contains(out, set.Members[p].RaftAddr) {
		t.Fatalf("remove on a secondary: %v\n%s", err, out)
	}

	gone := set.Members[f].RaftAddr
	if out, err := replicasCLI(t, set.Members[p], "remove", gone); err != nil {
		t.Fatalf("remove on the primary: %v\n%s", err, out)
	}
	if ids, _ := replicaIDs(t, set.Members[p]); slices.Contains(ids, gone) || len(ids) != 2 {
		t.Fatalf("after remove: %v", ids)
	}
	rc := redis.NewClient(&redis.Options{Addr: set.Members[p].RespAddr})
	defer rc.Close()
	if err := rc.Set(t.Context(), "while-out", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if out, err := replicasCLI(t, set.Members[p], "add", gone); err != nil {
		t.Fatalf("add on the primary: %v\n%s", err, out)
	}
	if ids, _ := replicaIDs(t, set.Members[p]); !slices.Equal(ids, all) {
		t.Fatalf("after add: %v, want %v", ids, all)
	}
	back := redis.NewClient(&redis.Options{Addr: set.Members[f].RespAddr})
	defer back.Close()
	waitGet(t, back, "while-out", "1")
}
