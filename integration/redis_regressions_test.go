package integration_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// waitBlocked polls CLIENT LIST until n clients run cmd.
func waitBlocked(t *testing.T, rc *redis.Client, cmd string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		list, err := rc.ClientList(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(list, "cmd="+cmd+" ") >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d clients in %s", n, cmd)
}

// TestRedisSetRangeHugeOffset: SETRANGE at an offset near 2^63 is refused
// as Redis refuses it, the offset plus the value's length overflowing no
// check, and the server goes on serving.
func TestRedisSetRangeHugeOffset(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	const tooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	if err := rc.Set(ctx, "k", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "missing"} {
		for _, off := range []int64{1<<63 - 1, 1<<63 - 2, 1 << 62, 512 << 20} {
			if err := rc.SetRange(ctx, key, off, "x").Err(); err == nil || err.Error() != tooBig {
				t.Fatalf("SETRANGE %s %d: %v", key, off, err)
			}
		}
	}
	if v, err := rc.Get(ctx, "k").Result(); err != nil || v != "hello" {
		t.Fatalf("GET after refused SETRANGEs: %q %v", v, err)
	}
	if v, err := rc.GetRange(ctx, "k", 1<<63-1, 1<<63-1).Result(); err != nil || v != "" {
		t.Fatalf("GETRANGE at the end of the range: %q %v", v, err)
	}
}

// TestRedisRandomKeyReturnsEveryKey: over 8 keys, 400 RANDOMKEYs bring
// every key back (Redis's own test asks for each of two in 100).
func TestRedisRandomKeyReturnsEveryKey(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	for i := 1; i <= 8; i++ {
		if err := rc.Set(ctx, fmt.Sprintf("key:%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for range 400 {
		k, err := rc.RandomKey(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		seen[k]++
	}
	if len(seen) != 8 {
		t.Fatalf("RANDOMKEY brought back %d of 8 keys: %v", len(seen), seen)
	}
}

// TestRedisBlockedServedAfterExec is Redis's "MULTI/EXEC is isolated from
// the point of view of BLPOP" through go-redis against the real binary:
// the blocked client gets the head that the last push of the EXEC left.
func TestRedisBlockedServedAfterExec(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	waiter := connectRedis(t, s)
	ctx := t.Context()
	got := make(chan []string, 1)
	go func() {
		v, err := waiter.BLPop(ctx, 0, "list").Result()
		if err != nil {
			v = []string{err.Error()}
		}
		got <- v
	}()
	waitBlocked(t, rc, "blpop", 1)
	cmds, err := rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, "list", "a")
		p.LPush(ctx, "list", "b")
		p.LPush(ctx, "list", "c")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if n := cmd.(*redis.IntCmd).Val(); n != int64(i+1) {
			t.Fatalf("EXEC reply %d: %d", i, n)
		}
	}
	select {
	case v := <-got:
		if !slices.Equal(v, []string{"list", "c"}) {
			t.Fatalf("BLPOP got %v", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLPOP not served after EXEC")
	}
	if v := rc.LRange(ctx, "list", 0, -1).Val(); !slices.Equal(v, []string{"b", "a"}) {
		t.Fatalf("list after EXEC: %v", v)
	}
}

// TestRedisWatchFlushOfMissingKey: FLUSHALL and FLUSHDB do not abort a
// transaction watching a key that did not exist (Redis's "FLUSHALL does
// not touch non affected keys"), and do abort one watching a key they
// deleted.
func TestRedisWatchFlushOfMissingKey(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	for _, flush := range []string{"flushall", "flushdb"} {
		for _, exists := range []bool{false, true} {
			rc.Del(ctx, "x")
			if exists {
				rc.Set(ctx, "x", "30", 0)
			}
			conn := rc.Conn()
			if err := conn.Do(ctx, "watch", "x").Err(); err != nil {
				t.Fatal(err)
			}
			if err := rc.Do(ctx, flush).Err(); err != nil {
				t.Fatal(err)
			}
			conn.Do(ctx, "multi")
			conn.Do(ctx, "ping")
			res, err := conn.Do(ctx, "exec").Result()
			conn.Close()
			if exists && !errors.Is(err, redis.Nil) {
				t.Fatalf("%s of a watched key: EXEC = %v %v", flush, res, err)
			}
			if !exists && (err != nil || fmt.Sprint(res) != "[PONG]") {
				t.Fatalf("%s with a missing watched key: EXEC = %v %v", flush, res, err)
			}
		}
	}
}

// TestRedisClientReplyModes: over a plain connection to the real binary,
// CLIENT REPLY ON after SKIP answers OK, and with replies OFF the
// SUBSCRIBE confirmation and the published messages still arrive.
func TestRedisClientReplyModes(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	nc, err := net.Dial("tcp", s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	expect := func(want string) {
		t.Helper()
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		got := make([]byte, len(want))
		if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
			t.Fatalf("read %q %v, want %q", got, err, want)
		}
	}
	fmt.Fprint(nc, "CLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nPING\r\n")
	expect("+OK\r\n+PONG\r\n")
	fmt.Fprint(nc, "CLIENT REPLY OFF\r\nSUBSCRIBE ch\r\n")
	expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n")
	if n, err := rc.Publish(t.Context(), "ch", "hi").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH: %d %v", n, err)
	}
	expect("*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n")
}

// TestRedisServerCommands: through go-redis against the real binary, the
// persistence commands answer as a persistent Redis (SAVE, BGSAVE,
// LASTSAVE), LATENCY as one with its monitor off, LCS as documented,
// CLIENT UNBLOCK releases a blocked BLPOP, and SHUTDOWN stops the server
// with every acknowledged write kept.
func TestRedisServerCommands(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir)
	rc := connectRedis(t, s)
	ctx := t.Context()
	before := time.Now().Unix()
	if err := rc.MSet(ctx, "key1", "ohmytext", "key2", "mynewtext").Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := rc.Save(ctx).Result(); err != nil || v != "OK" {
		t.Fatalf("SAVE: %q %v", v, err)
	}
	if v, err := rc.BgSave(ctx).Result(); err != nil || v != "Background saving started" {
		t.Fatalf("BGSAVE: %q %v", v, err)
	}
	if at, err := rc.LastSave(ctx).Result(); err != nil || at < before || at > time.Now().Unix() {
		t.Fatalf("LASTSAVE %d %v, saved after %d", at, err, before)
	}
	if v, err := rc.Do(ctx, "latency", "latest").Slice(); err != nil || len(v) != 0 {
		t.Fatalf("LATENCY LATEST: %v %v", v, err)
	}
	if v, err := rc.LCS(ctx, &redis.LCSQuery{Key1: "key1", Key2: "key2", Len: true}).Result(); err != nil || v.Len != 6 {
		t.Fatalf("LCS LEN: %v %v", v, err)
	}
	m, err := rc.LCS(ctx, &redis.LCSQuery{Key1: "key1", Key2: "key2", Idx: true, WithMatchLen: true, MinMatchLen: 4}).Result()
	if err != nil || m.Len != 6 || len(m.Matches) != 1 || m.Matches[0].Key1 != (redis.LCSPosition{Start: 4, End: 7}) ||
		m.Matches[0].Key2 != (redis.LCSPosition{Start: 5, End: 8}) || m.Matches[0].MatchLen != 4 {
		t.Fatalf("LCS IDX: %+v %v", m, err)
	}
	if v, err := rc.Do(ctx, "lcs", "key1", "key2").Text(); err != nil || v != "mytext" {
		t.Fatalf("LCS: %q %v", v, err)
	}
	if err := rc.Do(ctx, "client", "kill", "id", "0").Err(); err == nil || err.Error() != "ERR client-id should be greater than 0" {
		t.Fatalf("CLIENT KILL id 0: %v", err)
	}

	waiter := connectRedis(t, s).Conn()
	id := waiter.ClientID(ctx).Val()
	done := make(chan error, 1)
	go func() { done <- waiter.BLPop(ctx, 0, "nothing").Err() }()
	waitBlocked(t, rc, "blpop", 1)
	if n, err := rc.ClientUnblockWithError(ctx, id).Result(); err != nil || n != 1 {
		t.Fatalf("CLIENT UNBLOCK ERROR: %d %v", n, err)
	}
	select {
	case err := <-done:
		if err == nil || err.Error() != "UNBLOCKED client unblocked via CLIENT UNBLOCK" {
			t.Fatalf("BLPOP unblocked: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLPOP still blocked")
	}

	if err := rc.Set(ctx, "last", "write", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Shutdown(ctx).Err(); err != nil {
		t.Fatalf("SHUTDOWN: %v", err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Wait(waitCtx); err != nil {
		t.Fatalf("mayfly after SHUTDOWN: %v", err)
	}
	s = harness.StartDir(t, dir)
	if v, err := connectRedis(t, s).Get(ctx, "last").Result(); err != nil || v != "write" {
		t.Fatalf("after SHUTDOWN and restart: %q %v", v, err)
	}
}

// TestRedisMonitor: a client in MONITOR on the real binary sees another
// client's commands in Redis's line format.
func TestRedisMonitor(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	nc, err := net.Dial("tcp", s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	fmt.Fprint(nc, "MONITOR\r\n")
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if l, err := r.ReadString('\n'); err != nil || l != "+OK\r\n" {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	if err := rc.Set(t.Context(), "watched", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no monitor line for SET: %v", err)
		}
		if strings.HasSuffix(l, "] \"set\" \"watched\" \"v\"\r\n") && strings.HasPrefix(l, "+") && strings.Contains(l, " [0 127.0.0.1:") {
			return
		}
	}
}
