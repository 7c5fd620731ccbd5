package resp_test

import (
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// Ensure that SRANDMEMBER, HRANDFIELD and ZRANDMEMBER refuse the counts
// Redis 7.2 refuses, with its words, and refuse (instead of building in
// memory) more picks with repetition than kv.MaxRandomPicks, while a
// missing key still answers an empty array whatever the count.
func TestRandomCountBounds(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	const rangeErr = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	over := strconv.Itoa(-(kv.MaxRandomPicks + 1))
	runSteps(t, e, c, []step{
		reply(int64(1), "sadd", "s", "a"),
		reply(int64(1), "hset", "h", "f", "v"),
		reply(int64(1), "zadd", "z", "1", "m"),
	})
	var steps []step
	for _, k := range []struct{ cmd, key, with string }{
		{"srandmember", "s", ""}, {"hrandfield", "h", "withvalues"}, {"zrandmember", "z", "withscores"},
	} {
		steps = append(steps,
			fails(rangeErr, k.cmd, k.key, "-9223372036854775808"),
			fails("ERR value is not an integer or out of range", k.cmd, k.key, "9223372036854775808"),
			fails("ERR value is out of range", k.cmd, k.key, "-9223372036854775807"),
			fails("ERR value is out of range", k.cmd, k.key, over),
			reply([]any{}, k.cmd, "nokey", "-9223372036854775807"),
			reply([]any{}, k.cmd, k.key, "0"),
		)
		if k.with != "" {
			steps = append(steps,
				fails("ERR value is out of range", k.cmd, k.key, "-4611686018427387904", k.with),
				fails("ERR value is out of range", k.cmd, "nokey", "4611686018427387904", k.with),
				fails("ERR value is out of range", k.cmd, k.key, over, k.with),
			)
		}
	}
	runSteps(t, e, c, steps)
}
