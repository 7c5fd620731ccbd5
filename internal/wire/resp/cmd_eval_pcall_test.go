package resp_test

import "testing"

// TestEvalLuaPcallCatchesErrorMessage: Lua's pcall around redis.call (or
// around error({err=...})) catches the error's message as a string, as in
// Redis 7.0, whose pcall unwraps the error table for scripts written when
// errors were strings; other error objects are caught as they are.
func TestEvalLuaPcallCatchesErrorMessage(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	wrongType := "WRONGTYPE Operation against a key holding the wrong kind of value"
	runSteps(t, e, c, []step{
		reply(int64(1), "hset", "h", "f", "v"),
		reply([]any{"false", "string", wrongType}, "eval",
			"local ok, e = pcall(redis.call, 'incr', KEYS[1]) return {tostring(ok), type(e), e}", "1", "h"),
		reply(int64(1), "eval",
			"local ok, e = pcall(redis.call, 'incr', KEYS[1]) if string.find(e, '^WRONGTYPE') then return 1 end return 0", "1", "h"),
		reply([]any{"false", "y"}, "eval", "local ok, e = pcall(error, {err='y'}) return {tostring(ok), e}", "0"),
		reply([]any{"false", "number", int64(5)}, "eval", "local ok, e = pcall(error, {err=5}) return {tostring(ok), type(e), e}", "0"),
		reply([]any{"false", "table"}, "eval", "local ok, e = pcall(error, {1}) return {tostring(ok), type(e)}", "0"),
		// A successful call's values are untouched, a table with err among
		// them too.
		reply([]any{"true", "x"}, "eval", "local ok, e = pcall(function() return {err='x'} end) return {tostring(ok), e['err']}", "0"),
		reply([]any{"true", int64(1)}, "eval", "local ok, v = pcall(redis.call, 'hset', KEYS[1], 'g', 'w') return {tostring(ok), v}", "1", "h"),
		// redis.pcall still returns the error table itself.
		reply(wrongType, "eval", "return redis.pcall('incr', KEYS[1])['err']", "1", "h"),
	})
}
