package integration_test

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisTrackingExpiryGoRedis: against the real binary on a manual
// clock, a cached session key drops out of go-redis's own client-side
// cache (RESP3 CLIENT TRACKING, invalidate pushes) when the expiry engine
// deletes it, and a RESP2 client that redirects its tracking to a
// go-redis subscriber of __redis__:invalidate gets the key's invalidation
// at the same time.
func TestRedisTrackingExpiryGoRedis(t *testing.T) {
	s := harness.Start(t, "--manual-clock")
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	rc := connectRedis(t, s)
	must(rc.Set(ctx, "session", "alice", 10*time.Second).Err())

	// The RESP2 redirection: a subscriber, and a tracking connection that
	// sends it its invalidations.
	rc2 := redis.NewClient(&redis.Options{Addr: s.RespAddr, Protocol: 2, MaxRetries: -1})
	t.Cleanup(func() { rc2.Close() })
	ps := rc2.Subscribe(ctx, "__redis__:invalidate")
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := rc.ClientList(ctx).Result()
	must(err)
	subID := subscriberID(t, ids)
	tracker := rc.Conn()
	t.Cleanup(func() { tracker.Close() })
	must(tracker.Do(ctx, "CLIENT", "TRACKING", "ON", "REDIRECT", subID).Err())
	if v := tracker.Get(ctx, "session").Val(); v != "alice" {
		t.Fatalf("tracked GET = %q", v)
	}

	// go-redis's client-side cache.
	cached := redis.NewClient(&redis.Options{Addr: s.RespAddr, Protocol: 3, MaxRetries: -1,
		ClientSideCacheConfig: &redis.ClientSideCacheConfig{MaxEntries: 100}})
	t.Cleanup(func() { cached.Close() })
	for range 2 {
		if v := cached.Get(ctx, "session").Val(); v != "alice" {
			t.Fatalf("cached GET = %q", v)
		}
	}
	if st := cached.CSCStats(); st.Hits < 1 || st.Entries != 1 {
		t.Fatalf("cache stats before expiry %+v: the second GET was not served from the cache", st)
	}

	s.Advance(t, 11*time.Second) // the expiry engine deletes the key
	select {
	case m := <-ps.Channel():
		if !slices.Equal(m.PayloadSlice, []string{"session"}) {
			t.Fatalf("redirected invalidation %+v", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no invalidation on __redis__:invalidate after the key expired")
	}
	// The same commit queued the push to the cached client; its reader
	// applies it within its drain interval.
	eventually(t, 10*time.Second, "the cached session is no longer served after it expired", func() bool {
		_, err := cached.Get(ctx, "session").Result()
		return errors.Is(err, redis.Nil)
	})
}

// subscriberID finds the id of the one client in pub/sub mode in a CLIENT
// LIST reply.
func subscriberID(t *testing.T, list string) string {
	t.Helper()
	for _, line := range splitLines(list) {
		f := fields(line)
		if f["flags"] == "P" {
			if _, err := strconv.ParseUint(f["id"], 10, 64); err == nil {
				return f["id"]
			}
		}
	}
	t.Fatalf("no subscriber in CLIENT LIST:\n%s", list)
	return ""
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		if i == len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}

func fields(line string) map[string]string {
	out := map[string]string{}
	start := 0
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == ' ' {
			kv := line[start:i]
			for j := 0; j < len(kv); j++ {
				if kv[j] == '=' {
					out[kv[:j]] = kv[j+1:]
					break
				}
			}
			start = i + 1
		}
	}
	return out
}
