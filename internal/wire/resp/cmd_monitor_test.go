package resp_test

import (
	"bufio"
	"fmt"
	"regexp"
	"testing"
	"time"
)

// Ensure that MONITOR answers OK and then streams a line per command run
// by any client, in Redis's format, with AUTH's arguments redacted and
// administrative commands left out; RESET ends it.
func TestMonitor(t *testing.T) {
	e := newEnv(t)
	m := e.raw()
	r := bufio.NewReader(m)
	readLine := func() string {
		t.Helper()
		m.SetReadDeadline(time.Now().Add(5 * time.Second))
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v after %q", err, l)
		}
		return l
	}
	fmt.Fprint(m, "MONITOR\r\n")
	if l := readLine(); l != "+OK\r\n" {
		t.Fatalf("MONITOR: %q", l)
	}
	// Another client's commands; go-redis's connection handshake is a
	// command too, so this one speaks raw RESP.
	o := e.raw()
	orr := bufio.NewReader(o)
	send := func(args ...string) {
		t.Helper()
		fmt.Fprintf(o, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(o, "$%d\r\n%s\r\n", len(a), a)
		}
		o.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := orr.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		for orr.Buffered() > 0 { // CONFIG GET's array: drop the rest
			orr.ReadString('\n')
		}
	}
	send("set", "k", "a \"quoted\"\n\x01é")
	send("config", "get", "maxclients") // admin: not shown
	send("auth", "secret")
	send("select", "2")
	// EVAL comes before the commands its script calls, which come from
	// "lua", as in Redis.
	send("eval", "return redis.call('get', KEYS[1])", "1", "k")
	line := regexp.MustCompile(`^\+\d+\.\d{6} \[(\d+) (lua|127\.0\.0\.1:\d+)\] (.*)\r\n$`)
	for _, want := range []struct{ db, from, args string }{
		{"0", "client", `"set" "k" "a \"quoted\"\n\x01\xc3\xa9"`},
		{"0", "client", `"auth" "(redacted)"`},
		{"2", "client", `"select" "2"`},
		{"2", "client", `"eval" "return redis.call('get', KEYS[1])" "1" "k"`},
		{"2", "lua", `"get" "k"`},
	} {
		l := readLine()
		got := line.FindStringSubmatch(l)
		if got == nil || got[1] != want.db || got[3] != want.args || (got[2] == "lua") != (want.from == "lua") {
			t.Fatalf("monitor line %q, want db %s and %s", l, want.db, want.args)
		}
	}
	// A second MONITOR has no reply; RESET ends monitoring.
	fmt.Fprint(m, "MONITOR\r\nRESET\r\n")
	if l := readLine(); l != "+RESET\r\n" {
		t.Fatalf("RESET: %q", l)
	}
	send("ping")
	fmt.Fprint(m, "PING\r\n")
	if l := readLine(); l != "+PONG\r\n" {
		t.Fatalf("after RESET, a line of another client's command came: %q", l)
	}
}
