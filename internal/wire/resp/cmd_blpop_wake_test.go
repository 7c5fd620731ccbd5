package resp_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// wakeBound is how soon a blocked client must be served once the command
// filling its key returned. The servers of these tests re-check their
// keys only every hour (Options.BlockPoll), so a reply within the bound
// comes from the command serving the waiter, not from the poll; the bound
// stays far above the few milliseconds that takes, for a loaded machine.
const wakeBound = 900 * time.Millisecond

// TestBlockedServedAtOnce blocks a client (timeout 0) on a key that each
// command then makes a non-empty list or sorted set, and checks the client
// is served within wakeBound: RENAME, RENAMENX, COPY (also to another
// database), MOVE, SWAPDB (both ways), SORT ... STORE, the sorted set
// *STORE commands, LMOVE and RPOPLPUSH, and RENAME inside MULTI/EXEC, for
// every blocking command.
func TestBlockedServedAtOnce(t *testing.T) {
	cases := []struct {
		name    string
		setup   [][]any // on db 0, before the client blocks
		blockDB int     // the blocked client's database
		block   []any
		trigger [][]any // on db 0 (one connection: SELECT holds)
		multi   bool    // run trigger in MULTI/EXEC
		want    any
		after   [][]any // then each must reply afterW[i]
		afterW  []any
	}{
		{name: "rename blpop", setup: [][]any{{"rpush", "src", "x"}}, block: []any{"blpop", "dst", "0"},
			trigger: [][]any{{"rename", "src", "dst"}}, want: []any{"dst", "x"}},
		{name: "renamenx brpop", setup: [][]any{{"rpush", "src", "x", "y"}}, block: []any{"brpop", "dst", "0"},
			trigger: [][]any{{"renamenx", "src", "dst"}}, want: []any{"dst", "y"},
			after: [][]any{{"lrange", "dst", "0", "-1"}}, afterW: []any{[]any{"x"}}},
		{name: "copy blmpop", setup: [][]any{{"rpush", "src", "a", "b", "c"}}, block: []any{"blmpop", "0", "1", "dst", "LEFT", "COUNT", "2"},
			trigger: [][]any{{"copy", "src", "dst"}}, want: []any{"dst", []any{"a", "b"}},
			after: [][]any{{"llen", "src"}, {"lrange", "dst", "0", "-1"}}, afterW: []any{int64(3), []any{"c"}}},
		{name: "copy to another db bzpopmin", setup: [][]any{{"zadd", "src", "1", "a", "2", "b"}}, blockDB: 1,
			block:   []any{"bzpopmin", "dst", "0"},
			trigger: [][]any{{"copy", "src", "dst", "DB", "1"}}, want: []any{"dst", "a", "1"},
			after: [][]any{{"select", "1"}, {"zrange", "dst", "0", "-1"}, {"select", "0"}}, afterW: []any{"OK", []any{"b"}, "OK"}},
		{name: "move brpoplpush", setup: [][]any{{"rpush", "k", "x"}}, blockDB: 2, block: []any{"brpoplpush", "k", "out", "0"},
			trigger: [][]any{{"move", "k", "2"}}, want: "x",
			after: [][]any{{"select", "2"}, {"lrange", "out", "0", "-1"}, {"exists", "k"}, {"select", "0"}}, afterW: []any{"OK", []any{"x"}, int64(0), "OK"}},
		{name: "swapdb into the blocked db bzpopmax", blockDB: 0, block: []any{"bzpopmax", "z", "0"},
			trigger: [][]any{{"select", "3"}, {"zadd", "z", "1", "a", "5", "e"}, {"select", "0"}, {"swapdb", "0", "3"}}, want: []any{"z", "e", "5"}},
		{name: "swapdb other side blmove", setup: [][]any{{"rpush", "l", "v"}}, blockDB: 4, block: []any{"blmove", "l", "dst", "LEFT", "RIGHT", "0"},
			trigger: [][]any{{"swapdb", "4", "0"}}, want: "v",
			after: [][]any{{"select", "4"}, {"lrange", "dst", "0", "-1"}, {"select", "0"}}, afterW: []any{"OK", []any{"v"}, "OK"}},
		{name: "sort store blpop", setup: [][]any{{"rpush", "src", "3", "1", "2"}}, block: []any{"blpop", "dst", "0"},
			trigger: [][]any{{"sort", "src", "STORE", "dst"}}, want: []any{"dst", "1"}},
		{name: "zunionstore bzmpop", setup: [][]any{{"zadd", "z1", "1", "a"}, {"zadd", "z2", "2", "b"}}, block: []any{"bzmpop", "0", "1", "dst", "MAX"},
			trigger: [][]any{{"zunionstore", "dst", "2", "z1", "z2"}}, want: []any{"dst", []any{[]any{"b", "2"}}}},
		{name: "zinterstore bzpopmin", setup: [][]any{{"zadd", "z1", "1", "a", "2", "b"}, {"zadd", "z2", "3", "b"}}, block: []any{"bzpopmin", "dst", "0"},
			trigger: [][]any{{"zinterstore", "dst", "2", "z1", "z2"}}, want: []any{"dst", "b", "5"}},
		{name: "zdiffstore bzpopmax", setup: [][]any{{"zadd", "z1", "1", "a", "2", "b"}, {"zadd", "z2", "3", "b"}}, block: []any{"bzpopmax", "dst", "0"},
			trigger: [][]any{{"zdiffstore", "dst", "2", "z1", "z2"}}, want: []any{"dst", "a", "1"}},
		{name: "zrangestore bzpopmin", setup: [][]any{{"zadd", "z1", "1", "a", "2", "b"}}, block: []any{"bzpopmin", "dst", "0"},
			trigger: [][]any{{"zrangestore", "dst", "z1", "1", "1"}}, want: []any{"dst", "b", "2"}},
		{name: "lmove blpop", setup: [][]any{{"rpush", "src", "x"}}, block: []any{"blpop", "dst", "0"},
			trigger: [][]any{{"lmove", "src", "dst", "LEFT", "LEFT"}}, want: []any{"dst", "x"}},
		{name: "rpoplpush brpop", setup: [][]any{{"rpush", "src", "x"}}, block: []any{"brpop", "dst", "0"},
			trigger: [][]any{{"rpoplpush", "src", "dst"}}, want: []any{"dst", "x"}},
		{name: "rename in multi blpop", setup: [][]any{{"rpush", "src", "x"}}, block: []any{"blpop", "dst", "0"},
			trigger: [][]any{{"set", "other", "1"}, {"rename", "src", "dst"}}, multi: true, want: []any{"dst", "x"}},
		{name: "move in multi bzpopmin", setup: [][]any{{"zadd", "k", "7", "m"}}, blockDB: 5, block: []any{"bzpopmin", "k", "0"},
			trigger: [][]any{{"move", "k", "5"}}, multi: true, want: []any{"k", "m", "7"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(o *resp.Options) { o.BlockPoll = time.Hour })
			ctx := context.Background()
			c := e.client(2)
			cn := c.Conn()
			t.Cleanup(func() { cn.Close() })
			for _, cmd := range tc.setup {
				if err := cn.Do(ctx, cmd...).Err(); err != nil {
					t.Fatalf("%v: %v", cmd, err)
				}
			}
			blocked := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, DB: tc.blockDB, PoolSize: 1,
				DisableIdentity: true, ReadTimeout: 5 * time.Second, MaxRetries: -1})
			t.Cleanup(func() { blocked.Close() })
			ch := goDo(t, blocked, tc.block...)
			blockedClients(t, c, strings.ToLower(tc.block[0].(string)), 1)
			var start time.Time
			if tc.multi {
				_, err := cn.TxPipelined(ctx, func(p redis.Pipeliner) error {
					for _, cmd := range tc.trigger {
						p.Do(ctx, cmd...)
					}
					return nil
				})
				start = time.Now()
				if err != nil {
					t.Fatalf("EXEC: %v", err)
				}
			} else {
				for _, cmd := range tc.trigger {
					if err := cn.Do(ctx, cmd...).Err(); err != nil {
						t.Fatalf("%v: %v", cmd, err)
					}
					start = time.Now()
				}
			}
			select {
			case r := <-ch:
				if r.err != nil || !reflect.DeepEqual(r.v, tc.want) {
					t.Fatalf("%v = %#v %v, want %#v", tc.block, r.v, r.err, tc.want)
				}
				if d := time.Since(start); d > wakeBound {
					t.Fatalf("served %v after the command", d)
				}
			case <-time.After(wakeBound):
				t.Fatalf("%v not served within %v", tc.block, wakeBound)
			}
			for i, cmd := range tc.after {
				v, err := cn.Do(ctx, cmd...).Result()
				if err != nil || !reflect.DeepEqual(v, tc.afterW[i]) {
					t.Fatalf("%v = %#v %v, want %#v", cmd, v, err, tc.afterW[i])
				}
			}
		})
	}
}
