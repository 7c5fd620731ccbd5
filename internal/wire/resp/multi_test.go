package resp_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestMultiExec(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	// The seed's refresh pattern, with INCR instead of a list.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "views")
		p.Expire(ctx, "views", 60*time.Second)
		return nil
	})
	if err != nil || len(cmds) != 2 || cmds[0].(*redis.IntCmd).Val() != 1 {
		t.Fatalf("exec: %v %v", cmds, err)
	}
	if ttl := c.TTL(ctx, "views").Val(); ttl != 60*time.Second {
		t.Fatalf("ttl %v", ttl)
	}
	// Queued syntax errors abort; runtime errors do not.
	conn := c.Conn()
	defer conn.Close()
	steps := []step{
		ok("multi"),
		reply("QUEUED", "set", "a", "x"),
		reply("QUEUED", "incr", "a"),
		reply("QUEUED", "get", "a"),
	}
	for _, s := range steps {
		if got, err := conn.Do(ctx, s.args...).Result(); err != nil || got != s.want {
			t.Fatalf("%v: %v %v", s.args, got, err)
		}
	}
	res, err := conn.Do(ctx, "exec").Slice()
	if err != nil || len(res) != 3 || res[0] != "OK" || res[2] != "x" {
		t.Fatalf("exec: %#v %v", res, err)
	}
	if e, ok := res[1].(error); !ok || e.Error() != "ERR value is not an integer or out of range" {
		t.Fatalf("runtime error in exec: %#v", res[1])
	}
	conn.Do(ctx, "multi")
	conn.Do(ctx, "set", "b", "1")
	if err := conn.Do(ctx, "nosuch").Err(); err == nil {
		t.Fatal("unknown command queued")
	}
	if err := conn.Do(ctx, "get").Err(); err == nil || err.Error() != "ERR wrong number of arguments for 'get' command" {
		t.Fatalf("arity in multi: %v", err)
	}
	if err := conn.Do(ctx, "exec").Err(); err == nil || err.Error() != "EXECABORT Transaction discarded because of previous errors." {
		t.Fatalf("execabort: %v", err)
	}
	if n := c.Exists(ctx, "b").Val(); n != 0 {
		t.Fatal("aborted transaction wrote")
	}
	if err := conn.Do(ctx, "multi").Err(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Do(ctx, "multi").Err(); err == nil || err.Error() != "ERR MULTI calls can not be nested" {
		t.Fatalf("nested: %v", err)
	}
	if err := conn.Do(ctx, "watch", "a").Err(); err == nil || err.Error() != "ERR WATCH inside MULTI is not allowed" {
		t.Fatalf("watch in multi: %v", err)
	}
	if v, err := conn.Do(ctx, "discard").Result(); err != nil || v != "OK" {
		t.Fatalf("discard: %v %v", v, err)
	}
}

func TestWatch(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	other := e.client(2)
	ctx := t.Context()
	exec := func(changed func()) error {
		return c.Watch(ctx, func(tx *redis.Tx) error {
			changed()
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "w", "mine", 0)
				return nil
			})
			return err
		}, "w")
	}
	if err := exec(func() {}); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	if err := exec(func() { other.Set(ctx, "w", "theirs", 0) }); err != redis.TxFailedErr {
		t.Fatalf("changed key: %v", err)
	}
	if err := exec(func() { other.FlushDB(ctx) }); err != redis.TxFailedErr {
		t.Fatalf("flushdb: %v", err)
	}
	// A watched key that expires before EXEC fails it.
	c.Set(ctx, "w", "v", time.Second)
	if err := exec(func() { e.clock.Advance(2 * time.Second) }); err != redis.TxFailedErr {
		t.Fatalf("expired key: %v", err)
	}
	// A key already expired at WATCH time is unchanged by its deletion.
	c.Set(ctx, "w", "v", time.Second)
	e.clock.Advance(2 * time.Second)
	if err := exec(func() { e.reap() }); err != nil {
		t.Fatalf("already expired key: %v", err)
	}
	if v := c.Get(ctx, "w").Val(); v != "mine" {
		t.Fatalf("value %q", v)
	}
	// Time is frozen for a whole EXEC.
	c.Set(ctx, "f", "v", 500*time.Millisecond)
	res, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.PTTL(ctx, "f")
		p.PTTL(ctx, "f")
		return nil
	})
	if err != nil || !reflect.DeepEqual(res[0].(*redis.DurationCmd).Val(), res[1].(*redis.DurationCmd).Val()) {
		t.Fatalf("frozen time: %v %v", res, err)
	}
}

// TestWatchFlushAndSwap: FLUSHDB, FLUSHALL and SWAPDB change only the
// watched keys that are visible before or after them, as in Redis: a
// missing key, or one only expired, on both sides leaves EXEC to run.
func TestWatchFlushAndSwap(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	other := e.client(2)
	ctx := t.Context()
	// watchIn watches x in db, lets change run on another connection, and
	// reports whether EXEC ran.
	watchIn := func(db int, change func()) bool {
		t.Helper()
		conn := c.Conn()
		defer conn.Close()
		if err := conn.Select(ctx, db).Err(); err != nil {
			t.Fatal(err)
		}
		if err := conn.Do(ctx, "watch", "x").Err(); err != nil {
			t.Fatal(err)
		}
		change()
		if err := conn.Do(ctx, "multi").Err(); err != nil {
			t.Fatal(err)
		}
		if err := conn.Do(ctx, "ping").Err(); err != nil {
			t.Fatal(err)
		}
		res, err := conn.Do(ctx, "exec").Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		ran := err == nil && reflect.DeepEqual(res, []any{"PONG"})
		return ran
	}
	inDB := func(db int, args ...any) {
		t.Helper()
		conn := other.Conn()
		defer conn.Close()
		if err := conn.Select(ctx, db).Err(); err != nil {
			t.Fatal(err)
		}
		if err := conn.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	stale := func(db int) {
		inDB(db, "set", "x", "foo", "px", "1")
		e.clock.Advance(2 * time.Millisecond)
	}
	flush := func(args ...any) func() {
		return func() { other.Do(ctx, args...) }
	}
	cases := []struct {
		name  string
		setup func()
		db    int
		run   func()
		ran   bool
	}{
		{"FLUSHDB of a missing key", func() {}, 0, flush("flushdb"), true},
		{"FLUSHALL of a missing key", func() {}, 0, flush("flushall"), true},
		{"FLUSHDB of a key", func() { inDB(0, "set", "x", "30") }, 0, flush("flushdb"), false},
		{"FLUSHDB of a stale key", func() { stale(0) }, 0, flush("flushdb"), true},
		{"SWAPDB of a key", func() { inDB(0, "set", "x", "30") }, 0, flush("swapdb", "0", "1"), false},
		{"SWAPDB bringing a key", func() { inDB(1, "set", "x", "30") }, 0, flush("swapdb", "0", "1"), false},
		{"SWAPDB of a stale key for none", func() { stale(1) }, 1, flush("swapdb", "0", "1"), true},
		{"SWAPDB of none for a stale key", func() { stale(0) }, 1, flush("swapdb", "0", "1"), true},
		{"SWAPDB of a stale key for another", func() { stale(1); stale(0) }, 1, flush("swapdb", "0", "1"), true},
		{"SWAPDB of other databases", func() { inDB(0, "set", "x", "30") }, 0, flush("swapdb", "2", "3"), true},
	}
	for _, tc := range cases {
		if err := other.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		tc.setup()
		if got := watchIn(tc.db, tc.run); got != tc.ran {
			t.Errorf("%s: EXEC ran %v, want %v", tc.name, got, tc.ran)
		}
	}
}
