package integration_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisGoneHashGoRedis: through go-redis against the real binary, a
// hash whose fields have all expired is invisible to every command while no
// reaper runs (active expiry off), and so after a restart (its record keeps
// what the rule needs); the first lookup deletes it, counting its fields in
// INFO's expired_subkeys.
func TestRedisGoneHashGoRedis(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir, "--manual-clock")
	rc := connectRedis(t, s)
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rc.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	must(rc.HSet(ctx, "h", "a", "1", "b", "2").Err())
	must(rc.HSet(ctx, "later", "a", "1", "b", "2").Err())
	must(rc.Set(ctx, "other", "v", 0).Err())
	must(rc.HPExpire(ctx, "h", 100*time.Millisecond, "a", "b").Err())
	must(rc.HPExpire(ctx, "later", 100*time.Millisecond, "a").Err())
	must(rc.HPExpire(ctx, "later", time.Hour, "b").Err())
	if n := rc.DBSize(ctx).Val(); n != 3 {
		t.Fatalf("DBSIZE %d before expiry", n)
	}
	s.Advance(t, 200*time.Millisecond)
	checkGone(t, rc, 2)
	stats := rc.Info(ctx, "stats").Val()
	if !strings.Contains(stats, "\r\nexpired_subkeys:3\r\n") { // a and b of h, a of later
		t.Fatalf("INFO stats after the lookups:\n%s", stats)
	}

	// Restarted on the same data, before the clock passes the fields: the
	// rule reads the stored record.
	must(rc.HSet(ctx, "h2", "a", "1").Err())
	must(rc.HPExpire(ctx, "h2", 100*time.Millisecond, "a").Err())
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	must(s.Stop(stopCtx))
	s = harness.StartDir(t, dir, "--manual-clock")
	rc = connectRedis(t, s)
	must(rc.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	s.Advance(t, time.Second)
	if keys := rc.Keys(ctx, "*").Val(); strings.Join(keys, ",") != "later,other" && strings.Join(keys, ",") != "other,later" {
		t.Fatalf("KEYS after restart %v", keys)
	}
	if n := rc.Exists(ctx, "h2").Val(); n != 0 {
		t.Fatalf("EXISTS h2 after restart %d", n)
	}
}

// checkGone checks that hash h is invisible to every read path and that
// hash later (one field left) is not; wantKeys is the live key count.
func checkGone(t *testing.T, rc *redis.Client, wantKeys int64) {
	t.Helper()
	ctx := t.Context()
	// The paths that do not delete first.
	if keys := rc.Keys(ctx, "h*").Val(); len(keys) != 0 {
		t.Errorf("KEYS h* = %v", keys)
	}
	if keys, _ := rc.Scan(ctx, 0, "*", 100).Val(); len(keys) != int(wantKeys) {
		t.Errorf("SCAN = %v", keys)
	}
	if keys, _ := rc.ScanType(ctx, 0, "*", 100, "hash").Val(); len(keys) != 1 || keys[0] != "later" {
		t.Errorf("SCAN TYPE hash = %v", keys)
	}
	for range 10 {
		if k := rc.RandomKey(ctx).Val(); k == "h" {
			t.Errorf("RANDOMKEY returned h")
		}
	}
	if n := rc.DBSize(ctx).Val(); n != wantKeys {
		t.Errorf("DBSIZE %d, want %d", n, wantKeys)
	}
	if ks := rc.Info(ctx, "keyspace").Val(); !strings.Contains(ks, "db0:keys=2,expires=0,") {
		t.Errorf("INFO keyspace %q", ks)
	}
	// Then the lookups.
	if n := rc.Exists(ctx, "h").Val(); n != 0 {
		t.Errorf("EXISTS %d", n)
	}
	if ty := rc.Type(ctx, "h").Val(); ty != "none" {
		t.Errorf("TYPE %q", ty)
	}
	if d := rc.TTL(ctx, "h").Val(); d != -2*time.Nanosecond {
		t.Errorf("TTL %v", d)
	}
	if n := rc.HLen(ctx, "h").Val(); n != 0 {
		t.Errorf("HLEN %d", n)
	}
	if m := rc.HGetAll(ctx, "h").Val(); len(m) != 0 {
		t.Errorf("HGETALL %v", m)
	}
	if m := rc.HGetAll(ctx, "later").Val(); len(m) != 1 || m["b"] != "2" {
		t.Errorf("HGETALL later %v", m)
	}
}
