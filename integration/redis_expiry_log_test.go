package integration_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisExpiryLogRestart: with --resp-config expired-events-stream the
// real server's sweeper appends its deletions to the stream, a consumer
// group reads them with XREADGROUP BLOCK, and the entries and the group's
// pending list survive a restart.
func TestRedisExpiryLogRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--manual-clock", "--resp-config", "expired-events-stream=exp"}
	s := harness.StartDir(t, dir, args...)
	rc := connectRedis(t, s)
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if v := rc.ConfigGet(ctx, "expired-events-stream").Val()["expired-events-stream"]; v != "exp" {
		t.Fatalf("CONFIG GET expired-events-stream = %q", v)
	}
	must(rc.XGroupCreateMkStream(ctx, "exp", "g", "$").Err())
	must(rc.Set(ctx, "session", "v", 100*time.Millisecond).Err())
	must(rc.HSet(ctx, "h", "f", "1", "keep", "2").Err())
	must(rc.HPExpire(ctx, "h", 100*time.Millisecond, "f").Err())
	must(rc.Set(ctx, "deleted", "v", 100*time.Millisecond).Err())
	must(rc.Del(ctx, "deleted").Err())
	s.Advance(t, 200*time.Millisecond)

	got := map[string]string{}
	var ids []string
	for len(got) < 2 {
		res, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"exp", ">"}, Block: 10 * time.Second}).Result()
		if err != nil {
			t.Fatalf("XREADGROUP: %v (so far %v)", err, got)
		}
		for _, m := range res[0].Messages {
			field, _ := m.Values["field"].(string)
			got[m.Values["key"].(string)] = field
			ids = append(ids, m.ID)
		}
	}
	if len(got) != 2 || got["session"] != "" || got["h"] != "f" {
		t.Fatalf("entries %v, want session and h's field f", got)
	}

	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	must(s.Stop(stopCtx))
	s = harness.StartDir(t, dir, args...)
	rc = connectRedis(t, s)
	if n := rc.XLen(ctx, "exp").Val(); n != 2 {
		t.Fatalf("XLEN after restart %d, want 2", n)
	}
	if p := rc.XPending(ctx, "exp", "g").Val(); p == nil || p.Count != 2 {
		t.Fatalf("XPENDING after restart %+v", p)
	}
	if n := rc.XAck(ctx, "exp", "g", ids...).Val(); n != 2 {
		t.Fatalf("XACK = %d", n)
	}
	must(rc.Set(ctx, "after", "v", 100*time.Millisecond).Err())
	s.Advance(t, 200*time.Millisecond)
	res, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"exp", ">"}, Block: 10 * time.Second}).Result()
	if err != nil || len(res[0].Messages) != 1 || res[0].Messages[0].Values["key"] != "after" {
		t.Fatalf("XREADGROUP after restart = %v, %v", res, err)
	}
}
