package resp_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Ensure that FLUSHDB, FLUSHALL and SWAPDB abort only the transactions
// watching keys they change, as Redis's multi tests ("FLUSHALL does not
// touch non affected keys", "SWAPDB touches watched keys" ...) require.
func TestWatchSurvivesFlushOfOtherKeys(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	cases := []struct {
		name  string
		setup [][]any // run before WATCH x, in db 0 unless they SELECT
		touch []any   // run by another client after WATCH x
		runs  bool    // whether the EXEC runs
	}{
		{"flushall, x missing", nil, []any{"flushall"}, true},
		{"flushdb, x missing", nil, []any{"flushdb"}, true},
		{"flushdb, x set", [][]any{{"set", "x", "30"}}, []any{"flushdb"}, false},
		{"flushall, x set", [][]any{{"set", "x", "30"}}, []any{"flushall"}, false},
		{"flushdb, other keys only", [][]any{{"set", "y", "1"}}, []any{"flushdb"}, true},
		{"swapdb, x in neither", [][]any{{"set", "y", "1"}}, []any{"swapdb", "0", "1"}, true},
		{"swapdb, x in the other db", [][]any{{"select", "1"}, {"set", "x", "1"}, {"select", "0"}}, []any{"swapdb", "0", "1"}, false},
		{"swapdb, x in its db", [][]any{{"set", "x", "1"}}, []any{"swapdb", "0", "1"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			conn := c.Conn()
			defer conn.Close()
			for _, s := range tc.setup {
				if err := conn.Do(ctx, s...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if err := conn.Do(ctx, "watch", "x").Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Do(ctx, tc.touch...).Err(); err != nil {
				t.Fatal(err)
			}
			conn.Do(ctx, "multi")
			conn.Do(ctx, "ping")
			res, err := conn.Do(ctx, "exec").Result()
			switch {
			case tc.runs && (err != nil || len(res.([]any)) != 1 || res.([]any)[0] != "PONG"):
				t.Fatalf("EXEC = %v %v, want [PONG]", res, err)
			case !tc.runs && !errors.Is(err, redis.Nil):
				t.Fatalf("EXEC = %v %v, want a null reply", res, err)
			}
		})
	}
}
