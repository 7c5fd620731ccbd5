package resp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// subscriber collects keyevent notifications of db 0.
func keyevents(t *testing.T, e *env) (*redis.PubSub, func(n int) []string) {
	t.Helper()
	c := e.client(2)
	ps := c.PSubscribe(t.Context(), "__keyevent@0__:*")
	if _, err := ps.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	ch := ps.Channel()
	next := func(n int) []string {
		t.Helper()
		var out []string
		timeout := time.After(5 * time.Second)
		for len(out) < n {
			select {
			case m := <-ch:
				out = append(out, m.Channel[len("__keyevent@0__:"):]+" "+m.Payload)
			case <-timeout:
				t.Fatalf("got %d events %v, want %d", len(out), out, n)
			}
		}
		return out
	}
	t.Cleanup(func() { ps.Close() })
	return ps, next
}

// TestKeyspaceEvents checks the events of spec section 2, in order.
func TestKeyspaceEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	if err := c.ConfigSet(t.Context(), "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.ConfigGet(t.Context(), "notify-keyspace-events").Val()["notify-keyspace-events"]; got != "AKE" {
		t.Fatalf("config get = %q", got)
	}
	_, next := keyevents(t, e)
	cases := []struct {
		name   string
		cmds   [][]any
		events []string
	}{
		{"zero and negative expire delete", [][]any{{"set", "b", "v"}, {"expire", "b", "0"}, {"set", "c", "v"}, {"expire", "c", "-5"}, {"set", "d", "v"}, {"pexpireat", "d", "1"}},
			[]string{"set b", "del b", "set c", "del c", "set d", "del d"}},
		{"set exat in the past expires on access", [][]any{{"set", "a", "v", "exat", "1"}, {"get", "a"}, {"get", "a"}},
			[]string{"set a", "expire a", "expired a"}},
		{"getex in the past", [][]any{{"set", "f", "v"}, {"getex", "f", "exat", "1"}}, []string{"set f", "del f"}},
		{"invalid times emit nothing", [][]any{{"set", "e", "v", "ex", "0"}, {"setex", "e", "0", "v"}, {"getex", "f", "px", "0"}, {"set", "e2", "x"}},
			[]string{"set e2"}},
		{"rename", [][]any{{"set", "k1", "v", "ex", "100"}, {"rename", "k1", "k2"}},
			[]string{"set k1", "expire k1", "rename_from k1", "rename_to k2"}},
		{"getset and keepttl", [][]any{{"set", "m", "v", "ex", "100"}, {"getset", "m", "w"}, {"set", "m", "x", "keepttl"}},
			[]string{"set m", "expire m", "set m", "set m"}},
		{"lt gt persist", [][]any{{"set", "n", "v", "ex", "100"}, {"expire", "n", "200", "lt"}, {"expire", "n", "50", "gt"}, {"persist", "n"}, {"persist", "n"}, {"expire", "nokey", "10"}, {"set", "done", "1"}},
			[]string{"set n", "expire n", "persist n", "set done"}},
		{"string updates", [][]any{{"incr", "i"}, {"incrbyfloat", "i", "1.5"}, {"append", "i", "x"}, {"setrange", "i", "0", "y"}, {"del", "i"}, {"set", "x", "1"}, {"getdel", "x"}},
			[]string{"incrby i", "incrbyfloat i", "append i", "setrange i", "del i", "set x", "del x"}},
		{"copy and move", [][]any{{"set", "p", "1"}, {"copy", "p", "p2"}, {"move", "p", "3"}},
			[]string{"set p", "copy_to p2", "move_from p"}},
	}
	for _, tc := range cases {
		for _, cmd := range tc.cmds {
			c.Do(t.Context(), cmd...)
		}
		if got := next(len(tc.events)); !slices.Equal(got, tc.events) {
			t.Fatalf("%s: events %v, want %v", tc.name, got, tc.events)
		}
	}
	// The sweeper's deletions are `expired`, once.
	c.Set(t.Context(), "h", "v", 50*time.Millisecond)
	if got := next(2); !slices.Equal(got, []string{"set h", "expire h"}) {
		t.Fatalf("events %v", got)
	}
	e.clock.Advance(time.Second)
	if n := e.reap(); n != 1 {
		t.Fatalf("reaped %d", n)
	}
	c.Get(t.Context(), "h")
	c.Set(t.Context(), "end", "1", 0)
	if got := next(2); !slices.Equal(got, []string{"expired h", "set end"}) {
		t.Fatalf("events %v", got)
	}
}

func TestKeyspaceChannelAndClasses(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	// Only expired events, delivered on the keyspace channel.
	if err := c.ConfigSet(t.Context(), "notify-keyspace-events", "Kx").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.ConfigGet(t.Context(), "notify-keyspace-events").Val()["notify-keyspace-events"]; got != "xK" {
		t.Fatalf("config get = %q", got)
	}
	ps := e.client(3).PSubscribe(t.Context(), "__keyspace@*")
	defer ps.Close()
	if _, err := ps.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	c.Set(t.Context(), "k", "v", time.Second)
	e.clock.Advance(2 * time.Second)
	c.Get(t.Context(), "k")
	m, err := ps.ReceiveMessage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m.Channel != "__keyspace@0__:k" || m.Payload != "expired" || m.Pattern != "__keyspace@*" {
		t.Fatalf("message %+v", m)
	}
}
