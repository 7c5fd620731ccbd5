package resp_test

import (
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// Ensure that SAVE, BGSAVE and LASTSAVE answer as a persistent Redis does:
// LASTSAVE starts at the server's start and moves to the time of the last
// save; SAVE is refused inside MULTI (aborting it), BGSAVE is scheduled.
func TestSaveCommands(t *testing.T) {
	now := &clock{t: time.UnixMilli(start0)} // the server's clock
	e := newEnv(t, func(o *resp.Options) { o.Now = now.Now })
	c := e.client(2)
	start := now.Now().Unix()
	runSteps(t, e, c, []step{
		reply(start, "lastsave"),
		ok("set", "k", "v"),
	})
	now.Advance(5 * time.Second)
	runSteps(t, e, c, []step{
		ok("save"),
		reply(start+5, "lastsave"),
	})
	now.Advance(5 * time.Second)
	runSteps(t, e, c, []step{
		reply("Background saving started", "bgsave"),
		reply(start+10, "lastsave"),
		reply("Background saving started", "bgsave", "schedule"),
		fails("ERR syntax error", "bgsave", "now"),
		fails("ERR syntax error", "bgsave", "schedule", "x"),
		fails("ERR wrong number of arguments for 'save' command", "save", "x"),
	})
	conn := c.Conn()
	defer conn.Close()
	ctx := t.Context()
	conn.Do(ctx, "multi")
	if err := conn.Do(ctx, "save").Err(); err == nil || err.Error() != "ERR Command not allowed inside a transaction" {
		t.Fatalf("SAVE in MULTI: %v", err)
	}
	if err := conn.Do(ctx, "exec").Err(); err == nil || err.Error() != "EXECABORT Transaction discarded because of previous errors." {
		t.Fatalf("EXEC after SAVE: %v", err)
	}
	conn.Do(ctx, "multi")
	conn.Do(ctx, "bgsave")
	if res, err := conn.Do(ctx, "exec").Result(); err != nil || res.([]any)[0] != "Background saving scheduled" {
		t.Fatalf("BGSAVE in EXEC: %v %v", res, err)
	}
}

// Ensure that SHUTDOWN asks the server to stop and closes the connection
// without a reply, refuses bad flags, and that ABORT finds nothing to abort.
func TestShutdownCommand(t *testing.T) {
	var asked atomic.Int32
	e := newEnv(t, func(o *resp.Options) { o.Shutdown = func() { asked.Add(1) } })
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR syntax error", "shutdown", "later"),
		fails("ERR syntax error", "shutdown", "save", "nosave"),
		fails("ERR syntax error", "shutdown", "abort", "now"),
		fails("ERR No shutdown in progress.", "shutdown", "abort"),
	})
	if n := asked.Load(); n != 0 {
		t.Fatalf("a refused SHUTDOWN asked to stop %d times", n)
	}
	for i, args := range [][]any{{"shutdown"}, {"shutdown", "nosave", "now", "force"}} {
		err := c.Do(t.Context(), args...).Err()
		if !errors.Is(err, io.EOF) {
			t.Fatalf("%v: %v, want the connection closed", args, err)
		}
		if n := asked.Load(); n != int32(i+1) {
			t.Fatalf("%v asked to stop %d times", args, n)
		}
	}
	// Without a way to stop, SHUTDOWN says so.
	e2 := newEnv(t)
	runSteps(t, e2, e2.client(2), []step{fails("ERR Errors trying to SHUTDOWN. Check logs.", "shutdown")})
}

// Ensure that LATENCY answers as Redis with its latency monitor off.
func TestLatencyCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply([]any{}, "latency", "latest"),
		reply([]any{}, "latency", "history", "command"),
		reply(int64(0), "latency", "reset"),
		reply(int64(0), "latency", "reset", "command", "fork"),
		reply("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n", "latency", "doctor"),
		fails("ERR No samples available for event 'command'", "latency", "graph", "command"),
		fails("ERR wrong number of arguments for 'latency|history' command", "latency", "history"),
		fails("ERR unknown subcommand 'nope'. Try LATENCY HELP.", "latency", "nope"),
	})
	help, err := c.Do(t.Context(), "latency", "help").StringSlice()
	if err != nil || len(help) != 17 || help[1] != "DOCTOR" || help[12] != "HISTOGRAM [COMMAND ...]" {
		t.Fatalf("LATENCY HELP: %q %v", help, err)
	}
}
