package resp_test

import "testing"

// TestDebugSetDisableDenyScripts: DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets
// scripts call commands flagged noscript (Redis's test suite calls DEBUG
// PROTOCOL from scripts this way), and 0 denies them again.
func TestDebugSetDisableDenyScripts(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	body := "return redis.call('debug', 'protocol', 'integer')"
	denied := "ERR This Redis command is not allowed from script script: " + sha1hex(body) + ", on @user_script:1."
	runSteps(t, e, c, []step{
		fails(denied, "eval", body, "0"),
		ok("debug", "set-disable-deny-scripts", "1"),
		reply(int64(12345), "eval", body, "0"),
		reply([]any{"a", "b"}, "eval", "redis.call('rpush', KEYS[1], 'a', 'b') return redis.call('lrange', KEYS[1], 0, -1)", "1", "l"),
		ok("debug", "set-disable-deny-scripts", "0"),
		fails(denied, "eval", body, "0"),
		// The value is read as C's atoi reads it.
		ok("debug", "set-disable-deny-scripts", "2x"),
		reply(int64(12345), "eval", body, "0"),
		ok("debug", "set-disable-deny-scripts", "x"),
		fails(denied, "eval", body, "0"),
	})
}

// TestEvalSkipsAttributes: a RESP3 attribute before a command's reply is
// not shown to the script, which gets the reply that follows it.
func TestEvalSkipsAttributes(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("debug", "set-disable-deny-scripts", "1"),
		reply("Some real reply following the attribute", "eval", "redis.setresp(3) return redis.call('debug', 'protocol', 'attrib')", "0"),
		reply([]any{"string", "Some real reply following the attribute"}, "eval",
			"redis.setresp(3) local v = redis.call('debug', 'protocol', 'attrib') return {type(v), v}", "0"),
	})
}
