package integration_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// heartbeats records a client's server monitoring events.
type heartbeats struct {
	mu sync.Mutex
	// streaming holds the addresses whose monitor sent an awaitable hello.
	streaming map[string]bool
	// awaited are the replies of awaited heartbeats, in order.
	awaited []event.ServerDescription
	failed  int
}

func (h *heartbeats) monitor() *event.ServerMonitor {
	h.streaming = map[string]bool{}
	addr := func(connID string) string { a, _, _ := strings.Cut(connID, "["); return a }
	return &event.ServerMonitor{
		ServerHeartbeatStarted: func(e *event.ServerHeartbeatStartedEvent) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if e.Awaited {
				h.streaming[addr(e.ConnectionID)] = true
			}
		},
		ServerHeartbeatSucceeded: func(e *event.ServerHeartbeatSucceededEvent) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if e.Awaited {
				h.awaited = append(h.awaited, e.Reply)
			}
		},
		ServerHeartbeatFailed: func(*event.ServerHeartbeatFailedEvent) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.failed++
		},
	}
}

func (h *heartbeats) streamingTo(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streaming) >= n
}

// awaitedReplies returns the replies of the awaited heartbeats so far.
func (h *heartbeats) awaitedReplies() []event.ServerDescription {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]event.ServerDescription(nil), h.awaited...)
}

// Ensure that the Go driver monitors a standalone mayfly with the
// streaming protocol: after its handshake every heartbeat is an awaited
// hello, answered when maxAwaitTimeMS (the heartbeat interval) has passed,
// with the same topologyVersion, and none fails.
func TestMongoStandaloneHeartbeatsAreAwaited(t *testing.T) {
	s := harness.Start(t)
	var hb heartbeats
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").
		SetHeartbeatInterval(500 * time.Millisecond).SetServerMonitor(hb.monitor()).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	if err := cl.Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "two awaited heartbeats", func() bool { return len(hb.awaitedReplies()) >= 2 })
	replies := hb.awaitedReplies()
	for _, r := range replies {
		if r.Kind != "Standalone" || r.TopologyVersionProcessID != replies[0].TopologyVersionProcessID || r.TopologyVersionCounter != 0 {
			t.Fatalf("awaited heartbeat replies %+v", replies)
		}
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.failed > 0 {
		t.Fatalf("%d heartbeats failed", hb.failed)
	}
}

// Ensure that the Go driver learns of a step-down through the streaming
// protocol: with a heartbeat interval of a minute, which polling would
// wait out, an awaited heartbeat reports the new primary within seconds
// of replSetStepDown, and the old primary's own stream reports it a
// secondary.
func TestReplSetDriverLearnsStepDownByStreaming(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	var hb heartbeats
	cl, err := mongo.Connect(options.Client().ApplyURI(set.MongoURI()).
		SetHeartbeatInterval(time.Minute).SetServerMonitor(hb.monitor()).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	if err := cl.Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the driver streams hello from every member", func() bool { return hb.streamingTo(3) })
	seen := len(hb.awaitedReplies())
	old := set.Members[p].MongoAddr
	if err := cl.Database("admin").RunCommand(t.Context(), bson.D{{Key: "replSetStepDown", Value: 60}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}).Err(); err != nil {
		t.Fatalf("replSetStepDown: %v", err)
	}
	eventually(t, 15*time.Second, "an awaited heartbeat names a new primary", func() bool {
		for _, r := range hb.awaitedReplies()[seen:] {
			if r.Kind == "RSPrimary" && r.Addr.String() != old {
				return true
			}
		}
		return false
	})
	eventually(t, 15*time.Second, "the old primary's stream reports it a secondary", func() bool {
		for _, r := range hb.awaitedReplies()[seen:] {
			if r.Addr.String() == old && r.Kind == "RSSecondary" {
				return true
			}
		}
		return false
	})
}
