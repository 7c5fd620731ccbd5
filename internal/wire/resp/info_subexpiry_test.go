package resp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyspaceLines returns INFO keyspace's db lines, joined by spaces.
func keyspaceLines(t *testing.T, c redis.Cmdable) string {
	t.Helper()
	info, err := c.Info(t.Context(), "keyspace").Result()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(l, "db") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}

// TestInfoKeyspaceSubexpiry checks INFO keyspace's subexpiry (Redis 7.4+:
// the keys with at least one hash field expiry) after every command that
// gives or takes a field expiry, moves a hash, or drops keys, with expired
// keys and fields not counted before the sweeper reaps them.
func TestInfoKeyspaceSubexpiry(t *testing.T) {
	e := newEnv(t)
	cn := e.client(2).Conn() // one connection: the steps SELECT
	t.Cleanup(func() { cn.Close() })
	ctx := context.Background()
	do := func(args ...any) {
		t.Helper()
		if err := cn.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	steps := []struct {
		name    string
		cmds    [][]any
		advance time.Duration
		reap    bool
		want    string
	}{
		{"plain hash", [][]any{{"hset", "h1", "a", "1", "b", "2"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"hexpire", [][]any{{"hexpire", "h1", "100", "FIELDS", "1", "a"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"hpexpire another field", [][]any{{"hpexpire", "h1", "100000", "FIELDS", "1", "b"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"hpersist", [][]any{{"hpersist", "h1", "FIELDS", "2", "a", "b"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"hset overwrite clears", [][]any{{"hexpire", "h1", "100", "FIELDS", "1", "a"}, {"hset", "h1", "a", "9"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"hsetex", [][]any{{"hsetex", "h2", "EX", "100", "FIELDS", "1", "x", "1"}}, 0, false,
			"db0:keys=2,expires=0,avg_ttl=0,subexpiry=1"},
		{"hgetex", [][]any{{"hgetex", "h1", "PX", "100000", "FIELDS", "1", "a"}}, 0, false,
			"db0:keys=2,expires=0,avg_ttl=0,subexpiry=2"},
		{"hdel", [][]any{{"hdel", "h1", "a"}}, 0, false,
			"db0:keys=2,expires=0,avg_ttl=0,subexpiry=1"},
		{"hgetdel", [][]any{{"hgetdel", "h2", "FIELDS", "1", "x"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"rename", [][]any{{"hexpire", "h1", "100", "FIELDS", "1", "b"}, {"rename", "h1", "r1"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"copy", [][]any{{"copy", "r1", "c1"}, {"copy", "r1", "c1", "DB", "1"}}, 0, false,
			"db0:keys=2,expires=0,avg_ttl=0,subexpiry=2 db1:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"move", [][]any{{"move", "c1", "2"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1 db1:keys=1,expires=0,avg_ttl=0,subexpiry=1 db2:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"swapdb", [][]any{{"swapdb", "2", "3"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1 db1:keys=1,expires=0,avg_ttl=0,subexpiry=1 db3:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"flushdb", [][]any{{"select", "3"}, {"flushdb"}, {"select", "0"}}, 0, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=1 db1:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"unlink", [][]any{{"unlink", "r1"}}, 0, false,
			"db1:keys=1,expires=0,avg_ttl=0,subexpiry=1"},
		{"del", [][]any{{"select", "1"}, {"del", "c1"}, {"select", "0"}}, 0, false, ""},
		{"key expiry before reap", [][]any{
			{"hset", "k", "a", "1"}, {"hexpire", "k", "100", "FIELDS", "1", "a"}, {"pexpire", "k", "1000"}}, 2 * time.Second, false, ""},
		{"key expiry reaped", nil, 0, true, ""},
		{"field expiry leaves a persistent field", [][]any{
			{"hset", "f", "a", "1", "b", "2"}, {"hpexpire", "f", "1000", "FIELDS", "1", "a"}}, 2 * time.Second, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"field expiry reaped", nil, 0, true,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"all fields expired", [][]any{
			{"hset", "g", "a", "1"}, {"hpexpire", "g", "1000", "FIELDS", "1", "a"}}, 2 * time.Second, false,
			"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0"},
		{"flushall", [][]any{{"hset", "z", "a", "1"}, {"hexpire", "z", "100", "FIELDS", "1", "a"}, {"flushall"}}, 0, false, ""},
	}
	for _, s := range steps {
		for _, cmd := range s.cmds {
			do(cmd...)
		}
		e.clock.Advance(s.advance)
		if s.reap {
			e.reap()
			reapFields(e)
		}
		if got := keyspaceLines(t, cn); got != s.want {
			t.Fatalf("%s: INFO keyspace %q, want %q", s.name, got, s.want)
		}
	}
}
