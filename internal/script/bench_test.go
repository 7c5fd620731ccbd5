package script

import (
	"context"
	"testing"
)

// counterHost answers INCR with a counter and any other command with +OK,
// so a benchmark measures the interpreter and conversions, not a store.
type counterHost struct{ n int64 }

func (h *counterHost) Call(args [][]byte, proto int, noWrites bool) Reply {
	if string(args[0]) == "incr" {
		h.n++
		return Reply{Kind: Int, Int: h.n}
	}
	return Reply{Kind: Status, Str: []byte("OK")}
}

func (h *counterHost) CheckACL([][]byte) (bool, bool) { return true, true }

// BenchmarkRateLimiterScript runs the INCR+PEXPIRE rate-limiter script
// (the fixed-window limiter most libraries use) through Eval, as EVALSHA
// does once the script is cached; every 100th run takes the PEXPIRE branch.
func BenchmarkRateLimiterScript(b *testing.B) {
	body := []byte("local n = redis.call('incr', KEYS[1]) if n == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end return n")
	sha := SHA1(body)
	e := New(nil)
	h := &counterHost{}
	keys, args := [][]byte{[]byte("rl")}, [][]byte{[]byte("60000")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if h.n == 100 {
			h.n = 0
		}
		if r := e.Eval(ctx, sha, body, keys, args, h); r.Kind != Int {
			b.Fatalf("reply %+v", r)
		}
	}
}
