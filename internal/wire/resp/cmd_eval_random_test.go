package resp_test

import (
	"testing"
)

// TestEvalRandomLastsAcrossScripts: as in Redis 7.0, math.random's
// generator is not reset for each script, so consecutive scripts draw
// different numbers, and math.randomseed takes a numeric string (ARGV) as
// Lua 5.1's does, the same seed giving the same numbers.
func TestEvalRandomLastsAcrossScripts(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	draw := func(body string, args ...any) string {
		t.Helper()
		v, err := c.Eval(ctx, body, nil, args...).Text()
		if err != nil {
			t.Fatalf("EVAL %q: %v", body, err)
		}
		return v
	}
	seen := map[string]bool{}
	for range 5 {
		seen[draw("return tostring(math.random())")] = true
	}
	if len(seen) < 2 {
		t.Fatalf("five scripts drew %d distinct numbers, want them random", len(seen))
	}
	seeded := "math.randomseed(ARGV[1]) return tostring(math.random())"
	a, b, other := draw(seeded, "10"), draw(seeded, "10"), draw(seeded, "20")
	if a != b || a == other {
		t.Fatalf("seed 10 gave %s then %s, seed 20 gave %s: want the same for the same seed", a, b, other)
	}
	if got, err := c.Eval(ctx, "local n = math.random(ARGV[1]) return n >= 1 and n <= 3", nil, "3").Int64(); err != nil || got != 1 {
		t.Fatalf("math.random('3') in range: %v, %v", got, err)
	}
}
