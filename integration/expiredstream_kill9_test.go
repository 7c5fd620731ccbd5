package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that a consumer group on the expired-events stream keeps its
// acknowledged state across kill -9 (--durability=sync): after the crash
// the stream holds every expiration once, the group's pending list holds
// exactly the entries delivered and not acknowledged, and reading on
// delivers each entry never delivered, so every expiration is handled once
// (the pending ones again only through the history, as XREADGROUP
// promises).
func TestExpiredStreamConsumerGroupKill9(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--manual-clock", "--durability", "sync", "--resp-config", "expired-events-stream=exp"}
	s := harness.StartDir(t, dir, args...)
	rc := connectRedis(t, s)
	ctx := t.Context()
	if err := rc.XGroupCreateMkStream(ctx, "exp", "g", "$").Err(); err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		if err := rc.Set(ctx, fmt.Sprintf("k%d", i), "v", 100*time.Millisecond).Err(); err != nil {
			t.Fatal(err)
		}
	}
	s.Advance(t, 200*time.Millisecond)

	read := func(rc *redis.Client, from string, count int64) []redis.XMessage {
		t.Helper()
		res, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"exp", from}, Count: count, Block: 10 * time.Second}).Result()
		if err != nil {
			t.Fatalf("XREADGROUP %s: %v", from, err)
		}
		return res[0].Messages
	}
	acked := map[string]bool{}   // key → acknowledged before the crash
	pending := map[string]bool{} // entry id → delivered, not acknowledged
	for len(acked)+len(pending) < 120 {
		for _, m := range read(rc, ">", 10) {
			key := m.Values["key"].(string)
			if len(acked) < 100 {
				if err := rc.XAck(ctx, "exp", "g", m.ID).Err(); err != nil {
					t.Fatal(err)
				}
				acked[key] = true
			} else {
				pending[m.ID] = true
			}
		}
	}
	s.Kill()

	s = harness.StartDir(t, dir, args...)
	rc = connectRedis(t, s)
	if got := rc.XLen(ctx, "exp").Val(); got != n {
		t.Fatalf("XLEN after kill -9 = %d, want %d", got, n)
	}
	p, err := rc.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "exp", Group: "g", Start: "-", End: "+", Count: 1000}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != len(pending) {
		t.Fatalf("XPENDING after kill -9: %d entries, want the %d delivered and not acknowledged", len(p), len(pending))
	}
	for _, e := range p {
		if !pending[e.ID] || e.RetryCount != 1 {
			t.Fatalf("pending entry %+v was not delivered once and left unacknowledged", e)
		}
	}
	handled := map[string]bool{}
	for k := range acked {
		handled[k] = true
	}
	// The history gives the pending entries again; > gives the rest.
	for _, m := range read(rc, "0", 1000) {
		if !pending[m.ID] {
			t.Fatalf("history after kill -9 gave %s, not pending", m.ID)
		}
		handled[m.Values["key"].(string)] = true
	}
	for len(handled) < n {
		msgs := read(rc, ">", 50)
		for _, m := range msgs {
			key := m.Values["key"].(string)
			if handled[key] {
				t.Fatalf("%s (entry %s) delivered again after kill -9", key, m.ID)
			}
			handled[key] = true
		}
	}
	for i := range n {
		if !handled[fmt.Sprintf("k%d", i)] {
			t.Fatalf("the expiration of k%d was lost", i)
		}
	}
}
