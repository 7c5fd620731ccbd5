package integration_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisFunctionsRestart loads a library, stops the binary and starts
// it again on the same directory: FCALL still finds the function, and
// FLUSHALL before the stop did not delete it.
func TestRedisFunctionsRestart(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1})
	lib := "#!lua name=counters\nredis.register_function('bump', function(keys, args) return redis.call('incrby', keys[1], args[1]) end)"
	if name, err := rc.FunctionLoad(ctx, lib).Result(); err != nil || name != "counters" {
		t.Fatalf("FUNCTION LOAD = %q %v", name, err)
	}
	if n, err := rc.FCall(ctx, "bump", []string{"c"}, 5).Int64(); err != nil || n != 5 {
		t.Fatalf("FCALL = %d %v", n, err)
	}
	if err := rc.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	s2 := harness.StartDir(t, s.Dir)
	rc2 := redis.NewClient(&redis.Options{Addr: s2.RespAddr, MaxRetries: -1})
	t.Cleanup(func() { rc2.Close() })
	if n, err := rc2.FCall(ctx, "bump", []string{"c"}, 2).Int64(); err != nil || n != 2 {
		t.Fatalf("FCALL after restart = %d %v", n, err)
	}
	libs, err := rc2.FunctionList(ctx, redis.FunctionListQuery{WithCode: true}).Result()
	if err != nil || len(libs) != 1 || libs[0].Name != "counters" || libs[0].Code != lib {
		t.Fatalf("FUNCTION LIST after restart = %+v %v", libs, err)
	}
}

// TestRedisFunctionsDumpInterop moves libraries both ways between mayfly
// and a redis-server started for the test (skipped when redis-server is
// not installed): FUNCTION DUMP of one restores in the other, and the
// functions answer there.
func TestRedisFunctionsDumpInterop(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx := t.Context()
	real := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1})
	t.Cleanup(func() { real.Close() })
	for i := 0; real.Ping(ctx).Err() != nil; i++ {
		if i > 100 {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := harness.Start(t)
	mf := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1})
	t.Cleanup(func() { mf.Close() })

	// A long, repetitive library: redis-server LZF-compresses its code.
	fromRedis := "#!lua name=fromredis\n-- padding padding padding padding padding padding padding\n" +
		"redis.register_function{function_name='where', callback=function() return 'restored' end, flags={'no-writes'}, description='d'}"
	fromMayfly := "#!lua name=frommayfly\nredis.register_function('echo2', function(keys, args) return {args[1], args[1]} end)"
	if err := real.FunctionLoad(ctx, fromRedis).Err(); err != nil {
		t.Fatal(err)
	}
	if err := mf.FunctionLoad(ctx, fromMayfly).Err(); err != nil {
		t.Fatal(err)
	}
	redisDump, err := real.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	mayflyDump, err := mf.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := mf.FunctionRestore(ctx, redisDump).Err(); err != nil {
		t.Fatalf("mayfly restoring redis-server's dump: %v", err)
	}
	if err := real.FunctionRestore(ctx, mayflyDump).Err(); err != nil {
		t.Fatalf("redis-server restoring mayfly's dump: %v", err)
	}
	for name, c := range map[string]*redis.Client{"mayfly": mf, "redis-server": real} {
		if v, err := c.FCallRO(ctx, "where", nil).Result(); err != nil || v != "restored" {
			t.Errorf("%s: FCALL_RO where = %v %v", name, v, err)
		}
		if v, err := c.FCall(ctx, "echo2", nil, "x").StringSlice(); err != nil || len(v) != 2 || v[0] != "x" {
			t.Errorf("%s: FCALL echo2 = %v %v", name, v, err)
		}
	}
	// The same libraries, listed the same way by both.
	got, err := mf.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "fromredis", WithCode: true}).Result()
	if err != nil {
		t.Fatal(err)
	}
	want, err := real.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "fromredis", WithCode: true}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(want) != 1 || got[0].Code != want[0].Code || got[0].Functions[0].Description != want[0].Functions[0].Description ||
		len(got[0].Functions[0].Flags) != 1 || got[0].Functions[0].Flags[0] != want[0].Functions[0].Flags[0] {
		t.Fatalf("FUNCTION LIST: mayfly %+v, redis-server %+v", got, want)
	}
}
