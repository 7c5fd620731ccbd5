package resp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Ensure that a script that never ends does not keep the server from
// stopping: once Shutdown's deadline passes the script is cancelled, its
// client gets the error of a killed script and Shutdown returns.
func TestShutdownStopsRunningScript(t *testing.T) {
	e := newEnv(t)
	m := e.raw()
	mr := bufio.NewReader(m)
	m.SetReadDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(m, "MONITOR\r\n")
	if l, err := mr.ReadString('\n'); err != nil || l != "+OK\r\n" {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	c := e.client(2)
	res := make(chan error, 1)
	go func() {
		res <- c.Eval(context.Background(), "redis.call('ping') while true do end", nil).Err()
	}()
	// The script's PING reaches MONITOR once the script runs.
	for {
		l, err := mr.ReadString('\n')
		if err != nil {
			t.Fatalf("waiting for the script to run: %v", err)
		}
		if strings.Contains(l, `lua] "ping"`) {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline's error", err)
	}
	select {
	case err := <-res:
		if err == nil {
			t.Fatal("the looping script returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the looping script still runs after Shutdown")
	}
}
