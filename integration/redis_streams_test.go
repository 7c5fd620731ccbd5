package integration_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisStreamConsumerGroupFlow runs the consumer-group protocol a job
// queue such as BullMQ builds on, through go-redis against the real
// binary: workers block in XREADGROUP until a producer's XADD wakes one,
// acknowledge with XACK, and a job left pending by a worker that died is
// taken over with XAUTOCLAIM once idle. The stream, its group and its
// pending entries survive a restart, and `mayfly check` finds the data
// directory consistent.
func TestRedisStreamConsumerGroupFlow(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir, "--manual-clock")
	rc := connectRedis(t, s)
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rc.XGroupCreateMkStream(ctx, "q", "workers", "$").Err())

	// A worker blocks until a job arrives.
	w1 := connectRedis(t, s)
	got := make(chan []redis.XStream, 1)
	go func() {
		res, err := w1.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: "workers", Consumer: "w1", Streams: []string{"q", ">"}, Count: 10, Block: 0,
		}).Result()
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	waitBlocked(t, rc, "xreadgroup", 1)
	id1 := rc.XAdd(ctx, &redis.XAddArgs{Stream: "q", MaxLen: 1000, Approx: true, Values: []string{"job", "1"}}).Val()
	var res []redis.XStream
	select {
	case res = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked worker was not woken by XADD")
	}
	if len(res) != 1 || res[0].Stream != "q" || len(res[0].Messages) != 1 || res[0].Messages[0].ID != id1 ||
		res[0].Messages[0].Values["job"] != "1" {
		t.Fatalf("worker 1 got %+v", res)
	}
	if n := rc.XAck(ctx, "q", "workers", id1).Val(); n != 1 {
		t.Fatalf("XACK = %d", n)
	}

	// A second worker takes a job and dies without acknowledging it.
	id2 := rc.XAdd(ctx, &redis.XAddArgs{Stream: "q", Values: []string{"job", "2"}}).Val()
	w2 := connectRedis(t, s)
	res, err := w2.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "w2", Streams: []string{"q", ">"}, Block: -1}).Result()
	if err != nil || len(res) != 1 || res[0].Messages[0].ID != id2 {
		t.Fatalf("worker 2: %+v %v", res, err)
	}
	w2.Close()
	msgs, start, err := rc.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "q", Group: "workers", Consumer: "w1", MinIdle: 30 * time.Second, Start: "0-0", Count: 10}).Result()
	if err != nil || len(msgs) != 0 || start != "0-0" {
		t.Fatalf("XAUTOCLAIM before the job is idle: %v %q %v", msgs, start, err)
	}
	s.Advance(t, 31*time.Second)
	msgs, _, err = rc.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "q", Group: "workers", Consumer: "w1", MinIdle: 30 * time.Second, Start: "0-0", Count: 10}).Result()
	if err != nil || len(msgs) != 1 || msgs[0].ID != id2 {
		t.Fatalf("XAUTOCLAIM of the idle job: %v %v", msgs, err)
	}
	pending := rc.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "q", Group: "workers", Start: "-", End: "+", Count: 10}).Val()
	if len(pending) != 1 || pending[0].Consumer != "w1" || pending[0].RetryCount != 2 {
		t.Fatalf("XPENDING after the claim: %+v", pending)
	}

	// Restarted on the same directory: the stream, group and pending
	// entry are there.
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	must(s.Stop(stopCtx))
	if out, err := exec.Command(harness.Binary(t), "check", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("mayfly check: %v\n%s", err, out)
	}
	s = harness.StartDir(t, dir, "--manual-clock")
	rc = connectRedis(t, s)
	groups := rc.XInfoGroups(ctx, "q").Val()
	if len(groups) != 1 || groups[0].Pending != 1 || groups[0].LastDeliveredID != id2 || groups[0].EntriesRead != 2 || groups[0].Lag != 0 {
		t.Fatalf("XINFO GROUPS after restart: %+v", groups)
	}
	if n := rc.XAck(ctx, "q", "workers", id2).Val(); n != 1 {
		t.Fatalf("XACK after restart = %d", n)
	}
	if n := rc.XLen(ctx, "q").Val(); n != 2 {
		t.Fatalf("XLEN after restart = %d", n)
	}
}
