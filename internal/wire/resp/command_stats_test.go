package resp_test

import (
	"strings"
	"testing"
)

// TestRedisInfoCommandStats: INFO commandstats counts calls, failed calls
// and calls refused before they ran, per command (subcommands by their
// full name); errorstats counts error replies by prefix; "all" includes
// both, "default" only errorstats; CONFIG RESETSTAT clears them.
func TestRedisInfoCommandStats(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	runSteps(t, e, c, []step{
		ok("set", "k", "v"),
		fails("ERR value is not an integer or out of range", "incr", "k"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "lpush", "k", "x"),
		reply([]any{"maxclients", "10000"}, "config", "get", "maxclients"),
	})
	info := func(args ...any) string {
		t.Helper()
		s, err := c.Do(ctx, append([]any{"info"}, args...)...).Text()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cs := info("commandstats")
	for _, want := range []string{
		"# Commandstats\r\n",
		"cmdstat_set:calls=1,",
		"cmdstat_incr:calls=1,usec=",
		",rejected_calls=0,failed_calls=1\r\n",
		"cmdstat_config|get:calls=1,",
	} {
		if !strings.Contains(cs, want) {
			t.Errorf("INFO commandstats lacks %q:\n%s", want, cs)
		}
	}
	if strings.Contains(cs, "used_memory") {
		t.Errorf("INFO commandstats has other sections:\n%s", cs)
	}
	es := info("errorstats")
	if !strings.Contains(es, "errorstat_ERR:count=1\r\n") || !strings.Contains(es, "errorstat_WRONGTYPE:count=1\r\n") {
		t.Errorf("INFO errorstats:\n%s", es)
	}
	all, def := info("all"), info()
	if !strings.Contains(all, "rejected_calls") || strings.Contains(def, "rejected_calls") || !strings.Contains(def, "errorstat_ERR") {
		t.Errorf("INFO all has commandstats %v, default has %v", strings.Contains(all, "rejected_calls"), strings.Contains(def, "rejected_calls"))
	}
	if cpu := info("cpu", "all"); strings.Count(cpu, "used_cpu_user_children") != 1 || !strings.Contains(cpu, "master_repl_offset:0") {
		t.Errorf("INFO cpu all:\n%s", cpu)
	}
	runSteps(t, e, c, []step{ok("config", "resetstat")})
	if cs := info("commandstats"); strings.Contains(cs, "cmdstat_set") || strings.Contains(info("errorstats"), "errorstat_ERR") {
		t.Errorf("after CONFIG RESETSTAT:\n%s", cs)
	}
}
