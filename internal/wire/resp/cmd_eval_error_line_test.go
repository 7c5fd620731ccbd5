package resp_test

import "testing"

// TestEvalErrorNamesItsLine: an error a script raises itself names the
// line error was called on even when its message carries no position
// (error(msg, 0), error({err=...}), a number), as Redis's error handler
// does; a caught error leaves no trace on a later one.
func TestEvalErrorNamesItsLine(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	where := func(body string, line string) string {
		return " script: " + sha1hex(body) + ", on @user_script:" + line + "."
	}
	levelZero := "local function f() error('deep', 0) end\nlocal x = 1\nf()"
	table := "local ok = pcall(error, 'caught', 0)\nerror({err='MY code'})"
	number := "error(5, 0)"
	positioned := "\nerror('boom')"
	caught := "local ok = pcall(error, 'x', 0)\nreturn redis.call('incr', KEYS[1])"
	runSteps(t, e, c, []step{
		fails("ERR deep"+where(levelZero, "1"), "eval", levelZero, "0"),
		fails("MY code"+where(table, "2"), "eval", table, "0"),
		fails("ERR 5"+where(number, "1"), "eval", number, "0"),
		fails("ERR user_script:2: boom"+where(positioned, "2"), "eval", positioned, "0"),
		reply(int64(1), "hset", "h", "f", "v"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value"+where(caught, "2"), "eval", caught, "1", "h"),
	})
}
