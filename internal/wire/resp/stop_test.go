package resp_test

import (
	"strconv"
	"testing"
)

// Ensure that once the server must stop (Shutdown's deadline passed), a
// command walking the keyspace gives up instead of holding the store: the
// connections' transactions watch the server's stop signal.
func TestLongWalksStopWithTheServer(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	args := []any{"mset"}
	for i := range 1000 {
		args = append(args, "k"+strconv.Itoa(i), "v")
	}
	if err := c.Do(ctx, args...).Err(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.Keys(ctx, "k*").Val()); n != 1000 {
		t.Fatalf("KEYS before the stop: %d keys", n)
	}
	e.srv.StopWalks()
	if err := c.Keys(ctx, "k*").Err(); err == nil {
		t.Fatal("KEYS walked on after the server was told to stop")
	}
	if err := c.Do(ctx, "scan", "0", "count", "1000").Err(); err == nil {
		t.Fatal("SCAN walked on after the server was told to stop")
	}
	if v := c.Get(ctx, "k1").Val(); v != "v" {
		t.Fatalf("GET after the stop: %q", v)
	}
}
