package resp_test

import (
	"strconv"
	"testing"
	"time"
)

// Ensure that PFADD, PFCOUNT and PFMERGE answer as Redis does, store
// Redis's bytes (the header's cached cardinality included) and keep the
// expiry of the key they change.
func TestHyperLogLog(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(1), "pfadd", "h"),
		// An empty sparse HLL: header with an invalidated cache, one XZERO.
		reply("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff", "get", "h"),
		reply(int64(0), "pfcount", "h"),
		reply("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff", "get", "h"),
		reply(int64(1), "pfadd", "h", "a", "b", "c"),
		reply(int64(0), "pfadd", "h", "a", "b", "c"),
		reply(int64(3), "pfcount", "h"),
		reply(int64(1), "pfadd", "h", ""),
		reply(int64(4), "pfcount", "h", "missing"),
		reply(int64(0), "pfcount", "missing"),
		reply(int64(0), "pfcount", "missing", "missing2"),
		reply(int64(1), "pfadd", "h2", "x", "y", "z"),
		ok("pfmerge", "h3", "h", "h2"),
		reply(int64(7), "pfcount", "h3"),
		ok("pfmerge", "empty"),
		reply(int64(0), "pfcount", "empty"),
		// The same value in a plain SET is a HyperLogLog too.
		ok("set", "copy", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"),
		reply(int64(1), "pfadd", "copy", "x"),
		reply("Z:16374 v:2,1 z:9", "pfdebug", "decode", "copy"),
		reply("sparse", "pfdebug", "encoding", "copy"),
		reply(int64(1), "pfdebug", "todense", "copy"),
		reply(int64(0), "pfdebug", "todense", "copy"),
		reply("dense", "pfdebug", "encoding", "copy"),
		reply(int64(12304), "strlen", "copy"),
		reply(int64(1), "pfcount", "copy"),
		fails("ERR HLL encoding is not sparse", "pfdebug", "decode", "copy"),
		fails("ERR Unknown PFDEBUG subcommand 'foo'", "pfdebug", "foo", "copy"),
		fails("ERR The specified key does not exist", "pfdebug", "getreg", "missing"),
		// PFCOUNT may write its cache: a read-only script may not call it.
		fails("ERR Write commands are not allowed from read-only scripts. script: "+sha1hex("return redis.call('pfcount', KEYS[1])")+", on @user_script:1.",
			"eval_ro", "return redis.call('pfcount', KEYS[1])", "1", "h"),
		reply(int64(4), "eval", "return redis.call('pfcount', KEYS[1])", "1", "h"),
	})
	regs, err := c.Do(t.Context(), "pfdebug", "getreg", "h2").Slice()
	if err != nil || len(regs) != 16384 {
		t.Fatalf("getreg: %d registers, %v", len(regs), err)
	}
	runSteps(t, e, c, []step{reply("dense", "pfdebug", "encoding", "h2")})

	// Errors.
	runSteps(t, e, c, []step{
		ok("set", "s", "foo"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfadd", "s", "a"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfcount", "s"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfcount", "h", "s"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfmerge", "s", "h"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfmerge", "h", "s"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfdebug", "encoding", "s"),
		reply(int64(1), "rpush", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "pfadd", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "pfcount", "l"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "pfmerge", "h", "l"),
		reply(int64(1), "pfadd", "bad", "a", "b", "c"),
		reply(int64(32), "append", "bad", "hello"),
		fails("INVALIDOBJ Corrupted HLL object detected", "pfcount", "bad"),
		fails("INVALIDOBJ Corrupted HLL object detected", "pfmerge", "m", "bad"),
		reply(int64(32), "setrange", "bad", "4", "\x00"),
		fails("WRONGTYPE Key is not a valid HyperLogLog string value.", "pfcount", "bad"),
		fails("ERR wrong number of arguments for 'pfdebug' command", "pfdebug", "getreg"),
		fails("ERR wrong number of arguments for 'pfselftest' command", "pfselftest", "x"),
	})

	// PFSELFTEST runs Redis's whole self test, many times slower under the
	// race detector, whose step (-short) leaves it to the plain one.
	if !testing.Short() {
		runSteps(t, e, c, []step{ok("pfselftest")})
	}

	// Changes keep the expiry; PFCOUNT's cache write too.
	runSteps(t, e, c, []step{
		reply(int64(1), "pfadd", "t", "a"),
		reply(int64(1), "expire", "t", "100"),
		reply(int64(1), "pfadd", "t", "b"),
		reply(int64(2), "pfcount", "t"),
		ok("pfmerge", "t", "h"),
		reply(int64(100), "ttl", "t"),
	})
	e.clock.Advance(101 * time.Second)
	runSteps(t, e, c, []step{reply(int64(0), "pfcount", "t")})
}

// Ensure that a HyperLogLog turns dense past hll-sparse-max-bytes and that
// PFCOUNT stays close to the true cardinality, with Redis's exact count
// for "1".."10000" (9988, obtained from redis-server 7.0.15).
func TestHyperLogLogDense(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	for n := 0; n < 10000; n += 500 {
		args := []any{"pfadd", "h"}
		for j := n + 1; j <= n+500; j++ {
			args = append(args, strconv.Itoa(j))
		}
		if err := c.Do(t.Context(), args...).Err(); err != nil {
			t.Fatal(err)
		}
		if n == 500 {
			runSteps(t, e, c, []step{reply("sparse", "pfdebug", "encoding", "h")})
		}
	}
	runSteps(t, e, c, []step{
		reply("dense", "pfdebug", "encoding", "h"),
		reply(int64(9988), "pfcount", "h"),
		ok("config", "set", "hll-sparse-max-bytes", "30"),
		reply(int64(1), "pfadd", "small", "a", "b", "c", "d", "e", "f", "g", "h"),
		reply("dense", "pfdebug", "encoding", "small"),
	})
}
