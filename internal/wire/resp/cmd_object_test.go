package resp_test

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRedisObjectIdleTime: OBJECT IDLETIME counts whole seconds since the
// last command that read or wrote the key; EXISTS, TYPE, OBJECT itself and
// scans do not count, TOUCH does. FREQ needs an LFU policy.
func TestRedisObjectIdleTime(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "k", "v"),
		reply(int64(0), "object", "idletime", "k"),
		reply(nil, "object", "idletime", "missing"),
		reply(nil, "object", "freq", "missing"),
		fails("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.",
			"object", "freq", "k"),
		fails("ERR wrong number of arguments for 'object|idletime' command", "object", "idletime"),
	})
	e.clock.Advance(10 * time.Second)
	runSteps(t, e, c, []step{
		reply(int64(10), "object", "idletime", "k"),
		reply(int64(1), "exists", "k"),
		reply("string", "type", "k"),
		reply("embstr", "object", "encoding", "k"),
		reply([]any{"k"}, "keys", "*"),
		reply(int64(10), "object", "idletime", "k"),
		reply("v", "get", "k"),
		reply(int64(0), "object", "idletime", "k"),
	})
	e.clock.Advance(time.Minute)
	runSteps(t, e, c, []step{
		reply(int64(60), "object", "idletime", "k"),
		reply(int64(1), "touch", "k", "missing"),
		reply(int64(0), "object", "idletime", "k"),
	})
	e.clock.Advance(time.Hour)
	runSteps(t, e, c, []step{
		reply(int64(3600), "object", "idletime", "k"),
		reply(int64(2), "append", "k", "w"),
		reply(int64(0), "object", "idletime", "k"),
	})
	help, err := c.Do(t.Context(), "object", "help").StringSlice()
	if err != nil || !strings.Contains(strings.Join(help, "\n"), "IDLETIME <key>") {
		t.Fatalf("OBJECT HELP %q %v", help, err)
	}
}

// TestRedisHashGoneWhenAllFieldsExpire: a hash whose fields have all
// expired is invisible to every command before any reaper runs, is deleted
// with `hexpired` and `del` by the first lookup, and its fields count in
// INFO's expired_subkeys.
func TestRedisHashGoneWhenAllFieldsExpire(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(2), "hset", "h", "a", "1", "b", "2"),
		reply([]any{int64(1), int64(1)}, "hpexpire", "h", "100", "FIELDS", "2", "a", "b"),
		ok("set", "other", "v"),
	})
	if got := next(3); !reflect.DeepEqual(got, []string{"hset h", "hexpire h", "set other"}) {
		t.Fatalf("events %v", got)
	}
	e.clock.Advance(101 * time.Millisecond)
	keyspace := func() string {
		info, err := c.Info(t.Context(), "keyspace").Result()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(info)
	}
	if got := keyspace(); !strings.Contains(got, "db0:keys=1,expires=0,avg_ttl=0") {
		t.Fatalf("INFO keyspace %q", got)
	}
	runSteps(t, e, c, []step{
		reply([]any{"other"}, "keys", "*"),
		reply([]any{"0", []any{"other"}}, "scan", "0"),
		reply([]any{"0", []any{}}, "scan", "0", "TYPE", "hash"),
		reply("other", "randomkey"),
		reply(int64(1), "dbsize"),
		reply(int64(0), "exists", "h"),
		reply("none", "type", "h"),
		reply(int64(-2), "ttl", "h"),
		reply(int64(0), "hlen", "h"),
		reply([]any{}, "hgetall", "h"),
	})
	if got := next(2); !reflect.DeepEqual(got, []string{"hexpired h", "del h"}) {
		t.Fatalf("events after expiry %v", got)
	}
	stats, err := c.Info(t.Context(), "stats").Result()
	if err != nil || !strings.Contains(stats, "\r\nexpired_subkeys:2\r\nexpired_keys:0\r\n") {
		t.Fatalf("INFO stats %q %v", stats, err)
	}
	runSteps(t, e, c, []step{ok("config", "resetstat")})
	if stats, _ := c.Info(t.Context(), "stats").Result(); !strings.Contains(stats, "expired_subkeys:0\r\n") {
		t.Fatalf("after CONFIG RESETSTAT %q", stats)
	}
}
