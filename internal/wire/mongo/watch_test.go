package mongo

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// watching reports whether a watcher of the only connection of s reads the
// next message.
func watching(s *Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.watchMu.Lock()
		w := c.watching
		c.watchMu.Unlock()
		return w
	}
	return false
}

// awaitState waits, up to 30 s, until cond holds, checking it at each
// change of s's connections (Server.changed) instead of polling; on
// timeout it fails with what.
func awaitState(t *testing.T, s *Server, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		changed := s.awaitChange()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatal(what)
		}
	}
}

// Ensure that a message sent while a long request runs is read by the
// watcher and answered after it, in order, on the same connection.
func TestWatcherReadsNextMessage(t *testing.T) {
	s, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	rc.ping()
	g := newGate(t.Name())
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "$db", Value: "admin"}}))
	blockID := rc.id
	<-g.entered
	awaitState(t, s, "no watcher started for a request running longer than watchDelay", func() bool { return watching(s) })
	rc.send(rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
	close(g.release)
	first := rc.recv()
	if h := readHeader(first); h.responseTo != blockID {
		t.Fatalf("first reply answers %d, want the blocked request %d", h.responseTo, blockID)
	}
	if ok := rc.reply().Lookup("ok").Double(); ok != 1 {
		t.Fatal("ping sent during the long request failed")
	}
	rc.ping()
	if watching(s) {
		t.Fatal("watcher still reading after its message was served")
	}
}

// Ensure that a watcher's read error cancels the long request, as the
// client's disconnect does, and that the connection ends after its reply.
func TestWatcherEndsWithConnection(t *testing.T) {
	s, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	g := newGate(t.Name())
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "$db", Value: "admin"}}))
	<-g.entered
	awaitState(t, s, "no watcher started", func() bool { return watching(s) })
	// A frame declaring an impossible length: the watcher's read fails,
	// which closes the connection once the blocked request is answered.
	rc.send([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0})
	select {
	case <-g.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("request not cancelled after the stream became unreadable")
	}
	rc.recv()
	rc.expectClosed()
}
