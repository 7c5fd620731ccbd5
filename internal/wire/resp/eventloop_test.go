//go:build linux

package resp_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

func withEventLoop(o *resp.Options) { o.EventLoop = true }

// Ensure that the event loop says it is on, and that a client stalled in
// the middle of a request is closed by the frame timeout while an idle one
// is spared, as on the goroutine loop.
func TestEventLoopFrameTimeout(t *testing.T) {
	e := newEnv(t, withEventLoop, withFrameTimeout(300*time.Millisecond))
	rc := e.client(2)
	if got, err := rc.ConfigGet(t.Context(), "resp-event-loop").Result(); err != nil || got["resp-event-loop"] != "yes" {
		t.Fatalf("CONFIG GET resp-event-loop: %v %v", got, err)
	}
	idle := e.raw()
	c := e.raw()
	start := time.Now()
	io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc")
	waitClosed(t, c, 5*time.Second)
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Fatalf("closed after %s, before the frame timeout", took)
	}
	io.WriteString(idle, "PING\r\n")
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got := readLine(t, bufio.NewReader(idle)); got != "+PONG\r\n" {
		t.Fatalf("idle client: %q", got)
	}
}

// Ensure that a slow client that reads its large replies bit by bit gets
// every byte of them, while one that never reads is closed once its
// output buffer was not taken within the frame timeout, and the loop
// keeps serving the others meanwhile.
func TestEventLoopSlowAndStalledClients(t *testing.T) {
	e := newEnv(t, withEventLoop, withFrameTimeout(time.Second))
	rc := e.client(2)
	big := strings.Repeat("x", 1<<20)
	if err := rc.Set(t.Context(), "big", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	before := e.srv.Stats().ConnectedClients
	stalled := e.raw()
	io.WriteString(stalled, strings.Repeat("GET big\r\n", 24)) // 24 MB of replies, never read
	waitClients(t, e, "the stalled client is connected", func() bool { return e.srv.Stats().ConnectedClients > before })

	slow := e.raw()
	const n = 8
	io.WriteString(slow, strings.Repeat("GET big\r\n", n))
	slow.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReaderSize(slow, 512)
	want := fmt.Sprintf("$%d\r\n%s\r\n", len(big), big)
	for i := range n {
		got := make([]byte, len(want))
		if _, err := io.ReadFull(r, got); err != nil {
			t.Fatalf("slow client, reply %d: %v", i, err)
		}
		if string(got) != want {
			t.Fatalf("slow client, reply %d differs", i)
		}
	}
	if err := rc.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("another client while one stalls: %v", err)
	}
	waitClients(t, e, "the stalled client is closed", func() bool { return e.srv.Stats().ConnectedClients <= before+1 })
	waitClosed(t, stalled, 30*time.Second)
}

// Ensure that CLIENT KILL closes a client idle on the loop and one blocked
// in BLPOP (whose commands run on a goroutine), and that other clients are
// served while one is blocked.
func TestEventLoopClientKill(t *testing.T) {
	e := newEnv(t, withEventLoop)
	rc := e.client(2)
	ctx := t.Context()

	idle := e.raw()
	ir := bufio.NewReader(idle)
	io.WriteString(idle, "CLIENT ID\r\n")
	idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	idleID := strings.TrimSpace(strings.TrimPrefix(readLine(t, ir), ":"))

	blocked := e.raw()
	br := bufio.NewReader(blocked)
	io.WriteString(blocked, "CLIENT ID\r\nBLPOP nokey 0\r\n")
	blocked.SetReadDeadline(time.Now().Add(10 * time.Second))
	blockedID := strings.TrimSpace(strings.TrimPrefix(readLine(t, br), ":"))
	waitClients(t, e, "BLPOP blocks", func() bool {
		info, err := rc.Info(ctx, "clients").Result()
		return err == nil && strings.Contains(info, "blocked_clients:1\r\n")
	})
	// Clients on every loop are served while BLPOP waits.
	for range 4 {
		c := e.raw()
		io.WriteString(c, "PING\r\n")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if got := readLine(t, bufio.NewReader(c)); got != "+PONG\r\n" {
			t.Fatalf("PING while a client is blocked: %q", got)
		}
	}
	for _, id := range []string{idleID, blockedID} {
		if n, err := rc.Do(ctx, "CLIENT", "KILL", "ID", id).Int(); err != nil || n != 1 {
			t.Fatalf("CLIENT KILL ID %s: %d %v", id, n, err)
		}
	}
	waitClosed(t, idle, 10*time.Second)
	waitClosed(t, blocked, 10*time.Second)
	waitClients(t, e, "the killed clients are gone", func() bool {
		list, err := rc.ClientList(ctx).Result()
		return err == nil && !strings.Contains(list, "id="+idleID+" ") && !strings.Contains(list, "id="+blockedID+" ")
	})
}

// Ensure that the requests pipelined behind a blocking command run once it
// returns, in order, and that a push published to a RESP3 client blocked
// on the loop reaches it.
func TestEventLoopPipelineBehindBlocking(t *testing.T) {
	e := newEnv(t, withEventLoop)
	rc := e.client(2)
	c := e.raw()
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "HELLO 3\r\n")
	for {
		// HELLO's map: read up to its last field, the modules array.
		if l := readLine(t, r); l == "modules\r\n" || l == "$7\r\nmodules\r\n" {
			break
		}
	}
	readLine(t, r) // *0
	io.WriteString(c, "SUBSCRIBE ch\r\nBLPOP l 0\r\nPING\r\nECHO after\r\n")
	for _, want := range []string{">3\r\n", "$9\r\n", "subscribe\r\n", "$2\r\n", "ch\r\n", ":1\r\n"} {
		if got := readLine(t, r); got != want {
			t.Fatalf("SUBSCRIBE: got %q, want %q", got, want)
		}
	}
	waitClients(t, e, "BLPOP blocks", func() bool {
		info, err := rc.Info(t.Context(), "clients").Result()
		return err == nil && strings.Contains(info, "blocked_clients:1\r\n")
	})
	if err := rc.Publish(t.Context(), "ch", "hi").Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">3\r\n", "$7\r\n", "message\r\n", "$2\r\n", "ch\r\n", "$2\r\n", "hi\r\n"} {
		if got := readLine(t, r); got != want {
			t.Fatalf("push while blocked: got %q, want %q", got, want)
		}
	}
	if err := rc.RPush(t.Context(), "l", "v").Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"*2\r\n", "$1\r\n", "l\r\n", "$1\r\n", "v\r\n", "+PONG\r\n", "$5\r\n", "after\r\n"} {
		if got := readLine(t, r); got != want {
			t.Fatalf("after BLPOP: got %q, want %q", got, want)
		}
	}
}
