package resp_test

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// pcallLoop is Redis's script that catches errors to keep running.
const pcallLoop = "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end"

const busyErr = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

// monitorUntil reads the MONITOR stream r until a line containing want.
func monitorUntil(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("MONITOR while waiting for %q: %v", want, err)
		}
		if strings.Contains(l, want) {
			return
		}
	}
}

// busyEnv starts a server whose clock is clk, with a MONITOR connection
// to see scripts start, and busy-reply-threshold at 100 ms.
func busyEnv(t *testing.T, clk *clock, shutdown func()) (*env, *bufio.Reader) {
	e := newEnv(t, func(o *resp.Options) {
		o.Now = clk.Now
		o.BlockPoll = 5 * time.Millisecond
		o.Shutdown = shutdown
	})
	if err := e.client(2).ConfigSet(t.Context(), "busy-reply-threshold", "100").Err(); err != nil {
		t.Fatal(err)
	}
	m := e.raw()
	m.SetReadDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprint(m, "MONITOR\r\n")
	mr := bufio.NewReader(m)
	if l, err := mr.ReadString('\n'); err != nil || l != "+OK\r\n" {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	return e, mr
}

// connected returns a client whose connection is open before a script
// makes the server busy.
func connected(t *testing.T, e *env) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, PoolSize: 1, DisableIdentity: true,
		ReadTimeout: 10 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Ensure that, as in Redis, a client waiting for the store while a script
// runs waits until busy-reply-threshold passes and then gets BUSY, as do
// the commands sent later but SCRIPT KILL, which stops a read-only script:
// even one that catches errors with pcall: its caller gets Redis's error
// and the server serves again.
func TestBusyScriptAndScriptKill(t *testing.T) {
	clk := &clock{t: time.UnixMilli(start0)}
	e, mon := busyEnv(t, clk, nil)
	ctx := t.Context()
	a, b, k := connected(t, e), connected(t, e), connected(t, e)
	if err := k.ScriptKill(ctx).Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL with no script: %v", err)
	}
	res := make(chan error, 1)
	go func() { res <- a.Eval(context.Background(), pcallLoop, nil).Err() }()
	monitorUntil(t, mon, `lua] "ping"`)
	waiting := make(chan error, 1)
	go func() { waiting <- b.Get(context.Background(), "k").Err() }()
	// b waits behind the script until the threshold passes on the clock.
	clk.Advance(101 * time.Millisecond)
	if err := <-waiting; err == nil || err.Error() != busyErr {
		t.Fatalf("GET waiting for the script: %v, want %q", err, busyErr)
	}
	if err := b.Ping(ctx).Err(); err == nil || err.Error() != busyErr {
		t.Fatalf("PING while busy: %v", err)
	}
	if err := b.Do(ctx, "shutdown").Err(); err == nil || err.Error() != busyErr {
		t.Fatalf("SHUTDOWN (saving) while busy: %v", err)
	}
	if err := k.ScriptKill(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-res; err == nil || err.Error() != "ERR Script killed by user with SCRIPT KILL..." {
		t.Fatalf("the killed script's caller got %v", err)
	}
	if err := b.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET after the kill: %v", err)
	}
	if v := a.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("GET after the kill: %q", v)
	}
	if err := k.ScriptKill(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOTBUSY") {
		t.Fatalf("SCRIPT KILL after the kill: %v", err)
	}
}

// Ensure that a busy script that wrote cannot be killed, and that
// SHUTDOWN NOSAVE stops the server then, its writes rolled back.
func TestBusyScriptThatWroteIsUnkillable(t *testing.T) {
	clk := &clock{t: time.UnixMilli(start0)}
	stopped := make(chan struct{})
	e, mon := busyEnv(t, clk, func() { close(stopped) })
	ctx := t.Context()
	a, k := connected(t, e), connected(t, e)
	res := make(chan error, 1)
	go func() {
		res <- a.Eval(context.Background(), "redis.call('set', KEYS[1], 'w') while true do end", []string{"w"}).Err()
	}()
	monitorUntil(t, mon, `lua] "set"`)
	clk.Advance(time.Second)
	want := "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	if err := k.ScriptKill(ctx).Err(); err == nil || err.Error() != want {
		t.Fatalf("SCRIPT KILL of a script that wrote: %v", err)
	}
	k.Do(ctx, "shutdown", "nosave") // no reply: the connection closes
	<-stopped
	if err := <-res; err == nil {
		t.Fatal("the script stopped by SHUTDOWN NOSAVE returned no error")
	}
	if n := e.client(2).Exists(ctx, "w").Val(); n != 0 {
		t.Fatal("the writes of the stopped script were committed")
	}
}

// Ensure that the commands pipelined after a killed script on its
// connection still run, as Redis's "Timedout script does not cause a false
// dead client" test has it.
func TestKilledScriptPipelineGoesOn(t *testing.T) {
	clk := &clock{t: time.UnixMilli(start0)}
	e, mon := busyEnv(t, clk, nil)
	k := connected(t, e)
	p := e.raw()
	body := "while 1 do redis.call('ping') end"
	fmt.Fprintf(p, "*3\r\n$4\r\neval\r\n$%d\r\n%s\r\n$1\r\n0\r\n*1\r\n$4\r\nping\r\n", len(body), body)
	monitorUntil(t, mon, `lua] "ping"`)
	clk.Advance(time.Second)
	// SCRIPT KILL waits for the threshold like any client, then runs.
	if err := k.ScriptKill(t.Context()).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	pr := bufio.NewReader(p)
	p.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, want := range []string{"-ERR Script killed by user with SCRIPT KILL...\r\n", "+PONG\r\n"} {
		if l, err := pr.ReadString('\n'); err != nil || l != want {
			t.Fatalf("pipelined reply %q %v, want %q", l, err, want)
		}
	}
}
