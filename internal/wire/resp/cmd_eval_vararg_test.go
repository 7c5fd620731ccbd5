package resp_test

import "testing"

// TestEvalChunkVarargs: a script is a vararg chunk with no arguments and
// no arg table of its own (arg is an undefined global), while a vararg
// function inside it keeps Lua 5.1's arg table; as in Redis 7.0.
func TestEvalChunkVarargs(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	body := "return type(arg)"
	runSteps(t, e, c, []step{
		reply(int64(0), "eval", "return select('#', ...)", "0"),
		reply([]any{}, "eval", "return {...}", "1", "k"),
		fails("ERR user_script:1: Script attempted to access nonexistent global variable 'arg' script: "+sha1hex(body)+", on @user_script:1.",
			"eval", body, "0"),
		reply(int64(2), "eval", "local f = function(...) return arg.n end return f(1, 2)", "0"),
		reply([]any{int64(1), int64(2)}, "eval", "local f = function(...) return {...} end return f(1, 2)", "0"),
		// The rate limiter the chunk's cost was measured on.
		reply(int64(1), "eval", "local n = redis.call('incr', KEYS[1]) if n == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end return n", "1", "rl", "60000"),
		reply(int64(60000), "pttl", "rl"),
	})
}
