package mongo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// changingSet is a one-member replica set whose change count a test moves.
type changingSet struct {
	mu    sync.Mutex
	count int64
	next  chan struct{}
}

func newChangingSet() *changingSet { return &changingSet{next: make(chan struct{})} }

func (s *changingSet) View() ReplSetView {
	return ReplSetView{SetName: "rs0", Me: "127.0.0.1:1", IsPrimary: true, Primary: "127.0.0.1:1",
		Members: []ReplSetMember{{Host: "127.0.0.1:1", Self: true, Primary: true, Healthy: true}}}
}
func (s *changingSet) Writable() bool            { return true }
func (s *changingSet) StepDown() error           { return nil }
func (s *changingSet) AddMember(string) error    { return nil }
func (s *changingSet) RemoveMember(string) error { return nil }
func (s *changingSet) Changes() (int64, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count, s.next
}

func (s *changingSet) change() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	close(s.next)
	s.next = make(chan struct{})
}

// helloTV runs a plain hello and returns its topologyVersion.
func helloTV(t *testing.T, rc *rawConn) bson.D {
	t.Helper()
	rc.send(rc.msg(0, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}))
	var tv bson.D
	if err := bson.Unmarshal(rc.reply().Lookup("topologyVersion").Document(), &tv); err != nil {
		t.Fatal(err)
	}
	return tv
}

// streamed reads the next reply of a stream: it must answer the message
// whose requestID is responseTo; it returns the reply's body, its
// requestID and whether moreToCome is set.
func streamed(t *testing.T, rc *rawConn, responseTo int32) (bson.Raw, int32, bool) {
	t.Helper()
	frame := rc.recv()
	h := readHeader(frame)
	if h.opCode != opCodeMsg || h.responseTo != responseTo {
		t.Fatalf("reply opcode %v responseTo %d, want OP_MSG to %d", h.opCode, h.responseTo, responseTo)
	}
	m, perr := decodeOpMsg(frame)
	if perr != nil {
		t.Fatal(perr)
	}
	return m.body(), h.requestID, m.flags&flagMoreToCome != 0
}

// Ensure that a hello with exhaustAllowed streams as the OP_MSG and SDAM
// specifications have it: every reply has moreToCome and answers the
// reply before it, the next one follows when maxAwaitTimeMS has passed or
// as soon as the topology changes, with the new topologyVersion; the
// stream ends when the client goes, without harm to the server.
func TestExhaustHelloStreams(t *testing.T) {
	set := newChangingSet()
	s, addr, logs := rawServer(t, func(o *Options) { o.ReplicaSet = set })
	rc := dialRaw(t, addr)
	tv := helloTV(t, rc)
	rc.send(rc.msg(flagExhaustAllowed, bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tv},
		{Key: "maxAwaitTimeMS", Value: 30}, {Key: "$db", Value: "admin"}}))
	responseTo := rc.id
	for i := range 3 {
		body, id, more := streamed(t, rc, responseTo)
		if !more || body.Lookup("ok").Double() != 1 {
			t.Fatalf("reply %d: moreToCome %v, %v", i, more, body)
		}
		if got := body.Lookup("topologyVersion", "counter").Int64(); got != 0 {
			t.Fatalf("reply %d: counter %d with no change", i, got)
		}
		responseTo = id
	}

	// A long wait, cut short by a change of the set.
	rc2 := dialRaw(t, addr)
	rc2.send(rc2.msg(flagExhaustAllowed, bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tv},
		{Key: "maxAwaitTimeMS", Value: 3_600_000}, {Key: "$db", Value: "admin"}}))
	set.change()
	body, id, more := streamed(t, rc2, rc2.id)
	if !more || body.Lookup("topologyVersion", "counter").Int64() != 1 {
		t.Fatalf("reply after a change: moreToCome %v, %v", more, body)
	}
	set.change()
	body, _, more = streamed(t, rc2, id)
	if !more || body.Lookup("topologyVersion", "counter").Int64() != 2 {
		t.Fatalf("reply after a second change: moreToCome %v, %v", more, body)
	}

	// Clients that go in the middle of a wait.
	rc.nc.Close()
	rc2.nc.Close()
	awaitState(t, s, "the streaming connections did not end with their clients", func() bool { return s.connectionCount() == 0 })
	dialRaw(t, addr).ping()
	if log := logs.String(); strings.Contains(log, "panic") {
		t.Fatalf("server log: %s", log)
	}
}

// Ensure that an exhaust hello without maxAwaitTimeMS gets MongoDB's
// error, without moreToCome, and the connection serves on.
func TestExhaustHelloNeedsMaxAwaitTimeMS(t *testing.T) {
	_, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	rc.send(rc.msg(flagExhaustAllowed, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}))
	body, _, more := streamed(t, rc, rc.id)
	if more {
		t.Fatal("an error reply with moreToCome")
	}
	wantCode(t, body, mongoerr.Location51756, "An isMaster or hello request with exhaust must specify 'maxAwaitTimeMS'")
	rc.ping()
}

// Ensure that a streaming hello does not hold up Shutdown: its wait ends
// with InterruptedAtShutdown, sent without moreToCome, and the connection
// closes.
func TestExhaustHelloStopsAtShutdown(t *testing.T) {
	s, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	tv := helloTV(t, rc)
	rc.send(rc.msg(flagExhaustAllowed, bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tv},
		{Key: "maxAwaitTimeMS", Value: 3_600_000}, {Key: "$db", Value: "admin"}}))
	awaitState(t, s, "the streaming hello is not waiting", func() bool { return watching(s) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	body, _, more := streamed(t, rc, rc.id)
	if more {
		t.Fatal("the last reply has moreToCome")
	}
	wantCode(t, body, mongoerr.InterruptedAtShutdown, "interrupted at shutdown")
	rc.expectClosed()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
