package replica

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

func memStore(t *testing.T, name string) *storage.Store {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "/" + name, InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// dump returns every key and value of st, in order.
func dump(t *testing.T, st *storage.Store) string {
	t.Helper()
	it, err := st.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Fprintf(&b, "%q=%q\n", it.Key(), it.Value())
	}
	return b.String()
}

func commit(st *storage.Store, kvs ...string) error {
	b := st.NewBatch()
	defer b.Close()
	for i := 0; i+1 < len(kvs); i += 2 {
		if kvs[i+1] == "" {
			if err := b.Delete([]byte(kvs[i])); err != nil {
				return err
			}
			continue
		}
		if err := b.Set([]byte(kvs[i]), []byte(kvs[i+1])); err != nil {
			return err
		}
	}
	return b.Commit()
}

func TestFSMApplySnapshotRestore(t *testing.T) {
	src := memStore(t, "src")
	var foreign atomic.Int32
	me := [originLen]byte{1}
	fsm := NewFSM(src, me, func() { foreign.Add(1) })

	b := src.NewBatch()
	b.Set([]byte("\x05a"), []byte("1"))
	b.Set([]byte("\x05b"), []byte("2"))
	repr := append([]byte(nil), b.Repr()...)
	b.Close()
	if err, _ := fsm.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: entry(me, repr)}).(error); err != nil {
		t.Fatal(err)
	}
	if foreign.Load() != 0 {
		t.Fatalf("own entry reported foreign")
	}
	if i, ok := fsm.Applied(); i != 1 || !ok {
		t.Fatalf("applied after entry 1: %d, %v", i, ok)
	}
	other := [originLen]byte{2}
	b2 := src.NewBatch()
	b2.Delete([]byte("\x05a"))
	b2.Set([]byte("\x03doc"), []byte("x"))
	if err, _ := fsm.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: entry(other, b2.Repr())}).(error); err != nil {
		t.Fatal(err)
	}
	b2.Close()
	if foreign.Load() != 1 {
		t.Fatalf("foreign entry reported %d times, want 1", foreign.Load())
	}
	want := "\"\\x03doc\"=\"x\"\n\"\\x05b\"=\"2\"\n"
	if got := dump(t, src); got != want {
		t.Fatalf("after apply:\n%s\nwant\n%s", got, want)
	}
	// Re-applying a suffix of entries leaves the store as it is.
	b3 := src.NewBatch()
	b3.Delete([]byte("\x05a"))
	b3.Set([]byte("\x03doc"), []byte("x"))
	fsm.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: entry(other, b3.Repr())})
	b3.Close()
	if got := dump(t, src); got != want {
		t.Fatalf("after replay:\n%s\nwant\n%s", got, want)
	}
	if err, _ := fsm.Apply(&raft.Log{Index: 3, Type: raft.LogCommand, Data: []byte{1}}).(error); err == nil {
		t.Fatal("a short entry applied without error")
	}

	snap, err := fsm.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	snap.Release()
	// A later write is not in the snapshot.
	if err := commit(src, "\x05late", "1"); err != nil {
		t.Fatal(err)
	}

	dst := memStore(t, "dst")
	if err := commit(dst, "\x05stale", "gone"); err != nil {
		t.Fatal(err)
	}
	var restored atomic.Int32
	dstFSM := NewFSM(dst, other, func() { restored.Add(1) })
	if err := dstFSM.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	if i, ok := dstFSM.Applied(); i != 3 || !ok {
		t.Fatalf("applied after restoring the snapshot of entry 3: %d, %v", i, ok)
	}
	if got := dump(t, dst); got != want {
		t.Fatalf("restored:\n%s\nwant\n%s", got, want)
	}
	if restored.Load() != 1 {
		t.Fatal("restore did not report the store changed")
	}
	// A snapshot without its index (as written before it carried one)
	// restores the same data and leaves the index unknown.
	const indexPair = 1 + 1 + 8
	oldFSM := NewFSM(dst, other, nil)
	if err := oldFSM.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()[indexPair:]))); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, dst); got != want {
		t.Fatalf("restored without index:\n%s\nwant\n%s", got, want)
	}
	if i, ok := oldFSM.Applied(); ok {
		t.Fatalf("applied after restoring a snapshot without index: %d, known", i)
	}
	// A truncated snapshot is refused.
	err = NewFSM(dst, other, nil).Restore(io.NopCloser(bytes.NewReader(sink.Bytes()[:sink.Len()-1])))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated snapshot: %v", err)
	}
}

type memSink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }
func (s *memSink) Close() error  { return nil }

func TestLogStore(t *testing.T) {
	l := NewLogStore(memStore(t, "raft"))
	if i, err := l.LastIndex(); err != nil || i != 0 {
		t.Fatalf("empty LastIndex = %d, %v", i, err)
	}
	at := time.Unix(1700000000, 5)
	var logs []*raft.Log
	for i := uint64(1); i <= 5; i++ {
		logs = append(logs, &raft.Log{Index: i, Term: 2, Type: raft.LogCommand, Data: []byte{byte(i)}, AppendedAt: at})
	}
	if err := l.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
	if err := l.StoreLog(&raft.Log{Index: 6, Term: 3, Type: raft.LogNoop}); err != nil {
		t.Fatal(err)
	}
	first, _ := l.FirstIndex()
	last, _ := l.LastIndex()
	if first != 1 || last != 6 {
		t.Fatalf("indexes %d..%d, want 1..6", first, last)
	}
	var got raft.Log
	if err := l.GetLog(3, &got); err != nil {
		t.Fatal(err)
	}
	if got.Index != 3 || got.Term != 2 || got.Type != raft.LogCommand || !bytes.Equal(got.Data, []byte{3}) || !got.AppendedAt.Equal(at) {
		t.Fatalf("entry 3 = %+v", got)
	}
	if err := l.GetLog(6, &got); err != nil || !got.AppendedAt.IsZero() || got.Type != raft.LogNoop {
		t.Fatalf("entry 6 = %+v, %v", got, err)
	}
	if err := l.DeleteRange(1, 2); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteRange(5, 6); err != nil {
		t.Fatal(err)
	}
	first, _ = l.FirstIndex()
	last, _ = l.LastIndex()
	if first != 3 || last != 4 {
		t.Fatalf("after deletes %d..%d, want 3..4", first, last)
	}
	if err := l.GetLog(1, &got); !errors.Is(err, raft.ErrLogNotFound) {
		t.Fatalf("deleted entry: %v", err)
	}

	if _, err := l.Get([]byte("vote")); err == nil || err.Error() != "not found" {
		t.Fatalf("missing stable value: %v", err)
	}
	if v, err := l.GetUint64([]byte("term")); v != 0 || err != nil {
		t.Fatalf("missing stable number: %d, %v", v, err)
	}
	l.SetUint64([]byte("term"), 42)
	l.Set([]byte("vote"), []byte("n2"))
	if v, _ := l.GetUint64([]byte("term")); v != 42 {
		t.Fatalf("term %d", v)
	}
	if v, _ := l.Get([]byte("vote")); string(v) != "n2" {
		t.Fatalf("vote %q", v)
	}
}

// cluster is n members on raft's in-memory transport.
type cluster struct {
	nodes   []*Node
	stores  []*storage.Store
	foreign []*atomic.Int32
}

func newCluster(t *testing.T, size int) *cluster {
	t.Helper()
	c := &cluster{}
	var addrs []string
	var transports []*raft.InmemTransport
	for i := 0; i < size; i++ {
		addr, tr := raft.NewInmemTransport(raft.ServerAddress(fmt.Sprintf("n%d", i)))
		addrs = append(addrs, string(addr))
		transports = append(transports, tr)
	}
	for i, a := range transports {
		for j, b := range transports {
			if i != j {
				a.Connect(raft.ServerAddress(addrs[j]), b)
			}
		}
	}
	var mu sync.Mutex
	byAddr := map[string]*Node{}
	stateOf := func(addr string) (MemberState, error) {
		mu.Lock()
		n := byAddr[addr]
		mu.Unlock()
		if n == nil {
			return MemberState{}, fmt.Errorf("no member %s", addr)
		}
		return n.selfState(), nil
	}
	for i := 0; i < size; i++ {
		st := memStore(t, addrs[i])
		var foreign atomic.Int32
		n, err := Open(Config{
			SetName: "rs0", RaftAddr: addrs[i], Peers: addrs, Store: st,
			Transport: transports[i], LogStore: NewLogStore(memStore(t, addrs[i]+"-raft")),
			Snapshots:        raft.NewInmemSnapshotStore(),
			HeartbeatTimeout: 100 * time.Millisecond,
			OnForeign:        func() { foreign.Add(1) },
			StateOf:          stateOf,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		mu.Lock()
		byAddr[addrs[i]] = n
		mu.Unlock()
		c.nodes = append(c.nodes, n)
		c.stores = append(c.stores, st)
		c.foreign = append(c.foreign, &foreign)
	}
	return c
}

// primary waits for a member to accept writes and returns its position.
func (c *cluster) primary(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for i, n := range c.nodes {
			if n.IsPrimary() {
				return i
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no primary elected")
	return -1
}

// converge waits until every open member's store equals want.
func (c *cluster) converge(t *testing.T, skip int, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		same := true
		for i, st := range c.stores {
			if i != skip && dump(t, st) != want {
				same = false
			}
		}
		if same {
			return
		}
		if time.Now().After(deadline) {
			for i, st := range c.stores {
				t.Logf("member %d:\n%s", i, dump(t, st))
			}
			t.Fatalf("members did not converge to\n%s", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReplicaSetReplicatesCommits(t *testing.T) {
	c := newCluster(t, 3)
	p := c.primary(t)
	for i, n := range c.nodes {
		if i != p {
			if err := commit(c.stores[i], "\x05x", "1"); !errors.Is(err, storage.ErrNotPrimary) {
				t.Fatalf("write on follower %d: %v, want ErrNotPrimary", i, err)
			}
			if err := c.stores[i].Writable(); !errors.Is(err, storage.ErrNotPrimary) {
				t.Fatalf("follower %d writable: %v", i, err)
			}
			_ = n
		}
	}
	// Concurrent commits are all applied, in one order on every member.
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for w := 0; w < 50; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := commit(c.stores[p], fmt.Sprintf("\x05k%02d", w), "v", "\x05shared", fmt.Sprint(w)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A commit returns once it is applied on the primary.
	if v, err := c.stores[p].Get([]byte("\x05k07")); err != nil || string(v) != "v" {
		t.Fatalf("primary read after commit: %q, %v", v, err)
	}
	want := dump(t, c.stores[p])
	c.converge(t, -1, want)
	for i := range c.nodes {
		if i == p && c.foreign[i].Load() != 0 {
			t.Fatalf("primary saw %d foreign entries of its own writes", c.foreign[i].Load())
		}
		if i != p && c.foreign[i].Load() == 0 {
			t.Fatalf("follower %d was not told of foreign entries", i)
		}
	}

	// The primary steps down; another takes over and the data carries on.
	if err := c.nodes[p].StepDown(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	np := -1
	for np < 0 || np == p {
		if time.Now().After(deadline) {
			t.Fatal("no new primary after step down")
		}
		time.Sleep(10 * time.Millisecond)
		for i, n := range c.nodes {
			if n.IsPrimary() {
				np = i
			}
		}
	}
	if err := commit(c.stores[np], "\x05after", "stepdown"); err != nil {
		t.Fatal(err)
	}
	c.converge(t, -1, dump(t, c.stores[np]))

	st := c.nodes[np].Status()
	if !st.IsPrimary || st.Leader != c.nodes[np].cfg.RaftAddr || len(st.Members) != 3 || st.PrimaryTerm == 0 {
		t.Fatalf("status of the primary: %+v", st)
	}
	// WAIT's question: both followers apply the last write.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got := c.nodes[np].WaitReplicas(ctx, c.nodes[np].AppliedIndex(), 2); got != 2 {
		t.Fatalf("%d followers applied the last write, want 2", got)
	}
}

func TestReplicaSetCatchesUpFromSnapshot(t *testing.T) {
	c := newCluster(t, 3)
	p := c.primary(t)
	lag := (p + 1) % 3
	// Cut one follower off, write, snapshot and compact the log, then
	// reconnect it: it must install the snapshot.
	tr := c.nodes[lag].trans.(*raft.InmemTransport)
	tr.DisconnectAll()
	for i := range c.nodes {
		if i != lag {
			c.nodes[i].trans.(*raft.InmemTransport).Disconnect(raft.ServerAddress(c.nodes[lag].cfg.RaftAddr))
		}
	}
	for i := 0; i < 20; i++ {
		if err := commit(c.stores[p], fmt.Sprintf("\x03d%02d", i), "doc"); err != nil {
			t.Fatal(err)
		}
	}
	c.converge(t, lag, dump(t, c.stores[p]))
	if err := c.nodes[p].Snapshot(); err != nil {
		t.Fatal(err)
	}
	// Entries behind the snapshot leave the log (TrailingLogs would keep
	// them; remove them to force the snapshot path).
	if err := c.nodes[p].raft.Snapshot().Error(); err != nil && !errors.Is(err, raft.ErrNothingNewToSnapshot) {
		t.Fatal(err)
	}
	logs := c.nodes[p].cfg.LogStore
	last, _ := logs.LastIndex()
	if err := logs.DeleteRange(1, last-1); err != nil {
		t.Fatal(err)
	}
	before := c.foreign[lag].Load()
	for i := range c.nodes {
		for j := range c.nodes {
			if i != j {
				c.nodes[i].trans.(*raft.InmemTransport).Connect(raft.ServerAddress(c.nodes[j].cfg.RaftAddr), c.nodes[j].trans.(*raft.InmemTransport))
			}
		}
	}
	c.converge(t, -1, dump(t, c.stores[p]))
	if c.foreign[lag].Load() == before {
		t.Fatal("the lagging member caught up without being told")
	}
	if s := c.nodes[lag].raft.Stats()["last_snapshot_index"]; s == "0" {
		t.Fatal("the lagging member caught up without installing a snapshot")
	}
}

// Ensure that ApplyBatch applies the batches of several entries in order,
// as one commit, answering each entry: a later entry's write over an
// earlier one's wins, a non-command entry and a short entry get their own
// answers, and a foreign entry among them is reported once.
func TestFSMApplyBatch(t *testing.T) {
	st := memStore(t, "batch")
	var foreign atomic.Int32
	me, other := [originLen]byte{1}, [originLen]byte{2}
	fsm := NewFSM(st, me, func() { foreign.Add(1) })
	repr := func(kvs ...string) []byte {
		b := st.NewBatch()
		defer b.Close()
		for i := 0; i+1 < len(kvs); i += 2 {
			if kvs[i+1] == "" {
				b.Delete([]byte(kvs[i]))
			} else {
				b.Set([]byte(kvs[i]), []byte(kvs[i+1]))
			}
		}
		return append([]byte(nil), b.Repr()...)
	}
	logs := []*raft.Log{
		{Index: 1, Type: raft.LogCommand, Data: entry(me, repr("\x05a", "1", "\x05b", "1"))},
		{Index: 2, Type: raft.LogNoop},
		{Index: 3, Type: raft.LogCommand, Data: entry(other, repr("\x05a", "2", "\x05b", ""))},
		{Index: 4, Type: raft.LogCommand, Data: []byte{1}},
		{Index: 5, Type: raft.LogCommand, Data: entry(me, repr("\x05c", "3"))},
	}
	out := fsm.ApplyBatch(logs)
	for i, r := range out {
		err, _ := r.(error)
		if (err != nil) != (i == 3) {
			t.Fatalf("entry %d answered %v", logs[i].Index, r)
		}
	}
	want := "\"\\x05a\"=\"2\"\n\"\\x05c\"=\"3\"\n"
	if got := dump(t, st); got != want {
		t.Fatalf("after the batch:\n%s\nwant\n%s", got, want)
	}
	if foreign.Load() != 1 {
		t.Fatalf("foreign reported %d times, want 1", foreign.Load())
	}
	if out := fsm.ApplyBatch(logs[:2]); out[0] != nil || out[1] != nil {
		t.Fatalf("own entries answered %v", out)
	}
	if foreign.Load() != 1 {
		t.Fatalf("own entries reported foreign")
	}
}

// waitFor checks cond on every tick of a short ticker until it holds,
// failing the test with what after timeout. It is for state that real
// raft timers change (leadership, replication), which no fake clock
// drives.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

// Ensure that a member's applied index reaches the primary's last entry
// when that entry is one raft never hands to the state machine: the no-op
// a new primary appends, or the barrier it waits on before it takes
// writes. Before any write, a step-down must find a member caught up.
func TestAppliedIndexPassesEntriesTheStoreNeverSees(t *testing.T) {
	c := newCluster(t, 3)
	p := c.primary(t)
	last := c.nodes[p].raft.LastIndex()
	var l raft.Log
	if err := c.nodes[p].logs.GetLog(last, &l); err != nil {
		t.Fatal(err)
	}
	if l.Type != raft.LogNoop && l.Type != raft.LogBarrier {
		t.Fatalf("the primary's last entry is a %v, not the election's no-op or barrier", l.Type)
	}
	for i, n := range c.nodes {
		waitFor(t, 5*time.Second, fmt.Sprintf("member %d to apply through %d", i, last), func() bool {
			return n.AppliedIndex() >= last
		})
		if applied, _ := n.fsm.Applied(); applied >= last {
			t.Fatalf("member %d's state machine saw the no-op at %d", i, last)
		}
	}
	if err := c.nodes[p].StepDownFor(context.Background(), time.Minute, 5*time.Second, false); err != nil {
		t.Fatalf("step down: %v", err)
	}
}
