package resp_test

import (
	"strings"
	"testing"
)

// TestRedisSlowlog: commands at or above slowlog-log-slower-than are
// logged newest first, at most slowlog-max-len, with Redis's trimming of
// long arguments and redaction of passwords; EXEC is not logged but its
// commands are.
func TestRedisSlowlog(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	runSteps(t, e, c, []step{
		reply(int64(0), "slowlog", "len"),
		reply([]any{}, "slowlog", "get"),
		ok("config", "set", "slowlog-log-slower-than", "0"),
		ok("slowlog", "reset"),
		ok("client", "setname", "slowtester"),
		ok("set", "k", strings.Repeat("A", 129)),
		ok("config", "set", "requirepass", ""),
		ok("multi"),
		reply("QUEUED", "incr", "n"),
		reply([]any{int64(1)}, "exec"),
		fails("ERR count should be greater than or equal to -1", "slowlog", "get", "-2"),
	})
	got, err := c.Do(ctx, "slowlog", "get", "-1").Slice()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		ent := e.([]any)
		var args []string
		for _, a := range ent[3].([]any) {
			args = append(args, a.(string))
		}
		lines = append(lines, strings.Join(args, " "))
		if ent[5] != "slowtester" && ent[5] != "" {
			t.Errorf("entry client name %q", ent[5])
		}
	}
	wantAll := []string{
		"slowlog get -2",
		"incr n",
		"multi",
		"config set requirepass (redacted)",
		"set k " + strings.Repeat("A", 128) + "... (1 more bytes)",
		"client setname slowtester",
		"slowlog reset",
	}
	if strings.Join(lines, "\n") != strings.Join(wantAll, "\n") {
		t.Fatalf("slowlog\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(wantAll, "\n"))
	}
	args := []any{"sadd", "s"}
	for i := range 40 {
		args = append(args, itoaTest(i))
	}
	runSteps(t, e, c, []step{
		ok("config", "set", "slowlog-max-len", "2"),
		reply(int64(40), args...),
	})
	got, err = c.Do(ctx, "slowlog", "get", "1").Slice()
	if err != nil || len(got) != 1 {
		t.Fatalf("slowlog get 1: %v %v", got, err)
	}
	first := got[0].([]any)[3].([]any)
	if len(first) != 32 || first[31] != "... (11 more arguments)" || first[30] != "28" {
		t.Fatalf("trimmed arguments %v", first)
	}
	runSteps(t, e, c, []step{
		reply(nil, "get", "missing"),
		reply(int64(2), "slowlog", "len"),
	})
	runSteps(t, e, c, []step{
		ok("config", "set", "slowlog-log-slower-than", "-1"),
		ok("slowlog", "reset"),
		ok("set", "x", "y"),
		reply(int64(0), "slowlog", "len"),
	})
}
