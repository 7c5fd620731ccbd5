package replica

import (
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// Ensure that a member closed while it is becoming primary, its barrier
// possibly still queued in raft, closes at once.
func TestCloseWhileGainingLeadership(t *testing.T) {
	for i := range 30 {
		addr, tr := raft.NewInmemTransport("")
		n, err := Open(Config{
			SetName: "rs0", RaftAddr: string(addr), Peers: []string{string(addr)},
			Store: memStore(t, "data"), Transport: tr, LogStore: NewLogStore(memStore(t, "raft")),
			Snapshots:        raft.NewInmemSnapshotStore(),
			HeartbeatTimeout: 20 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		// Close when raft has just made it leader, before or while the
		// member applies the earlier entries.
		for n.raft.State() != raft.Leader {
			runtime.Gosched()
		}
		closed := make(chan error, 1)
		go func() { closed <- n.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatalf("close %d: %v", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("close %d still waits after 10s", i)
		}
	}
}
