package resp_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// expiryLogEnv starts a server whose expiry log is the stream "exp",
// turned on with CONFIG SET.
func expiryLogEnv(t *testing.T, maxLen string, mutate ...func(*resp.Options)) (*env, *redis.Client) {
	e := newEnv(t, mutate...)
	c := e.client(2)
	ctx := t.Context()
	if err := c.ConfigSet(ctx, "expired-events-stream", "exp").Err(); err != nil {
		t.Fatal(err)
	}
	if maxLen != "" {
		if err := c.ConfigSet(ctx, "expired-events-maxlen", maxLen).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return e, c
}

func msStr(ms int64) string { return strconv.FormatInt(ms, 10) }

// logged returns the values of the stream's entries, oldest first.
func logged(t *testing.T, c *redis.Client) []map[string]any {
	t.Helper()
	es, err := c.XRange(t.Context(), "exp", "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(es))
	for i, m := range es {
		out[i] = m.Values
	}
	return out
}

// TestExpiryLogKeys: keys the sweeper deletes and keys a read finds
// expired are logged in order with their due and deletion times; DEL,
// UNLINK and an expiry in the past log nothing.
func TestExpiryLogKeys(t *testing.T) {
	e, c := expiryLogEnv(t, "")
	ctx := t.Context()
	c.Set(ctx, "a", "1", 100*time.Millisecond)
	c.Set(ctx, "b", "1", 200*time.Millisecond)
	c.Set(ctx, "gone", "1", 100*time.Millisecond)
	c.Set(ctx, "lazy", "1", 150*time.Millisecond)
	c3 := e.client(2).Conn()
	defer c3.Close()
	c3.Select(ctx, 3)
	c3.Set(ctx, "other", "1", 100*time.Millisecond)
	c.Del(ctx, "gone")
	c.Set(ctx, "u", "1", 0)
	c.Unlink(ctx, "u")
	c.Set(ctx, "past", "1", 0)
	c.Do(ctx, "pexpireat", "past", "1")
	if n := len(logged(t, c)); n != 0 {
		t.Fatalf("before expiry: %d entries, want 0", n)
	}

	e.clock.Advance(160 * time.Millisecond)
	now1 := e.clock.Now().UnixMilli()
	if err := c.Get(ctx, "lazy").Err(); err != redis.Nil {
		t.Fatalf("GET lazy: %v", err)
	}
	e.reap()
	e.clock.Advance(100 * time.Millisecond)
	now2 := e.clock.Now().UnixMilli()
	e.reap()

	want := []map[string]any{
		{"db": "0", "key": "lazy", "due": msStr(start0 + 150), "deleted": msStr(now1)},
		{"db": "0", "key": "a", "due": msStr(start0 + 100), "deleted": msStr(now1)},
		{"db": "3", "key": "other", "due": msStr(start0 + 100), "deleted": msStr(now1)},
		{"db": "0", "key": "b", "due": msStr(start0 + 200), "deleted": msStr(now2)},
	}
	if got := logged(t, c); !reflect.DeepEqual(got, want) {
		t.Fatalf("entries\n got %v\nwant %v", got, want)
	}
}

// TestExpiryLogFields: expired hash fields are logged with their field,
// by the sweeper and by a read that deletes them.
func TestExpiryLogFields(t *testing.T) {
	e, c := expiryLogEnv(t, "")
	ctx := t.Context()
	c.HSet(ctx, "h", "f1", "1", "f2", "2", "keep", "3")
	c.Do(ctx, "hpexpire", "h", "100", "fields", "1", "f1")
	c.Do(ctx, "hpexpire", "h", "200", "fields", "1", "f2")
	c.HSet(ctx, "r", "x", "1", "y", "2")
	c.Do(ctx, "hpexpire", "r", "50", "fields", "1", "x")
	c.HDel(ctx, "h", "keep")
	c.HSet(ctx, "h", "keep", "3")

	e.clock.Advance(120 * time.Millisecond)
	now1 := e.clock.Now().UnixMilli()
	if got := c.HGetAll(ctx, "r").Val(); !reflect.DeepEqual(got, map[string]string{"y": "2"}) {
		t.Fatalf("HGETALL r = %v", got)
	}
	reapFields(e)
	e.clock.Advance(100 * time.Millisecond)
	now2 := e.clock.Now().UnixMilli()
	reapFields(e)

	want := []map[string]any{
		{"db": "0", "key": "r", "field": "x", "due": msStr(start0 + 50), "deleted": msStr(now1)},
		{"db": "0", "key": "h", "field": "f1", "due": msStr(start0 + 100), "deleted": msStr(now1)},
		{"db": "0", "key": "h", "field": "f2", "due": msStr(start0 + 200), "deleted": msStr(now2)},
	}
	if got := logged(t, c); !reflect.DeepEqual(got, want) {
		t.Fatalf("entries\n got %v\nwant %v", got, want)
	}
}

// TestExpiryLogMaxLen: the stream is trimmed to about the maximum, whole
// nodes at a time, and the stream's own key expiring logs nothing.
func TestExpiryLogMaxLen(t *testing.T) {
	e, c := expiryLogEnv(t, "10")
	ctx := t.Context()
	c.ConfigSet(ctx, "stream-node-max-entries", "5")
	c.ConfigSet(ctx, "expired-events-maxlen", "10") // applies the node size
	for i := range 50 {
		c.Set(ctx, "k"+strconv.Itoa(i), "v", time.Duration(i+1)*time.Millisecond)
	}
	e.clock.Advance(time.Second)
	e.reap()
	n := c.XLen(ctx, "exp").Val()
	if n < 10 || n >= 15 {
		t.Fatalf("XLEN = %d, want 10..14", n)
	}
	got := logged(t, c)
	if last := got[len(got)-1]; last["key"] != "k49" {
		t.Fatalf("last entry %v, want k49", last)
	}

	c.PExpire(ctx, "exp", 10*time.Millisecond)
	e.clock.Advance(20 * time.Millisecond)
	e.reap()
	if n := c.Exists(ctx, "exp").Val(); n != 0 {
		t.Fatalf("EXISTS exp = %d after its expiry", n)
	}
	c.Set(ctx, "z", "v", time.Millisecond)
	e.clock.Advance(10 * time.Millisecond)
	e.reap()
	if got := logged(t, c); len(got) != 1 || got[0]["key"] != "z" {
		t.Fatalf("entries after the stream expired: %v", got)
	}
}

// TestExpiryLogOffAndWrongType: with the parameter empty nothing is
// logged, and a key of another type at the name drops the entries without
// failing the expiry.
func TestExpiryLogOffAndWrongType(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	if got := c.ConfigGet(ctx, "expired-events-*").Val(); !reflect.DeepEqual(got, map[string]string{"expired-events-stream": "", "expired-events-maxlen": "100000"}) {
		t.Fatalf("CONFIG GET = %v", got)
	}
	c.Set(ctx, "a", "1", time.Millisecond)
	e.clock.Advance(10 * time.Millisecond)
	e.reap()
	if n := c.Exists(ctx, "exp").Val(); n != 0 {
		t.Fatal("logged while off")
	}
	c.ConfigSet(ctx, "expired-events-stream", "exp")
	c.Set(ctx, "exp", "a string", 0)
	c.Set(ctx, "b", "1", time.Millisecond)
	e.clock.Advance(10 * time.Millisecond)
	if n := e.reap(); n != 1 {
		t.Fatalf("reaped %d, want 1", n)
	}
	if n := c.Exists(ctx, "b").Val(); n != 0 {
		t.Fatal("b not expired")
	}
}

// TestExpiryLogGroupBlocked: a consumer group blocked in XREADGROUP on the
// stream receives an expiry as the sweeper deletes the key, and XACK
// acknowledges it.
func TestExpiryLogGroupBlocked(t *testing.T) {
	// The blocked clients' periodic retry is far off: only the append
	// itself can wake the reader in time.
	e, c := expiryLogEnv(t, "", func(o *resp.Options) { o.BlockPoll = 30 * time.Second })
	ctx := t.Context()
	if err := c.XGroupCreateMkStream(ctx, "exp", "g", "$").Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "session", "1", 100*time.Millisecond)
	reader := e.client(2)
	type res struct {
		s   []redis.XStream
		err error
	}
	done := make(chan res, 1)
	go func() {
		s, err := reader.XReadGroup(context.Background(), &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{"exp", ">"}, Block: 0}).Result()
		done <- res{s, err}
	}()
	// Wait until the reader blocks, then expire the key.
	for i := 0; ; i++ {
		if i == 5000 {
			t.Fatal("the reader never blocked")
		}
		info := c.Info(ctx, "clients").Val()
		if strings.Contains(info, "blocked_clients:1") {
			break
		}
		time.Sleep(time.Millisecond)
	}
	e.clock.Advance(200 * time.Millisecond)
	e.reap()
	var r res
	select {
	case r = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the blocked reader was not woken by the expiry")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.s) != 1 || len(r.s[0].Messages) != 1 || r.s[0].Messages[0].Values["key"] != "session" {
		t.Fatalf("XREADGROUP = %v", r.s)
	}
	if n := c.XAck(ctx, "exp", "g", r.s[0].Messages[0].ID).Val(); n != 1 {
		t.Fatalf("XACK = %d", n)
	}
}
