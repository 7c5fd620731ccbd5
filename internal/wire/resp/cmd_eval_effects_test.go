package resp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestEvalEffects checks that a script's writes notify, invalidate WATCH
// and wake blocked clients as the same commands sent directly do.
func TestEvalEffects(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	_, next := keyevents(t, e)
	if err := c.Eval(ctx, "redis.call('set', KEYS[1], 'v') redis.call('expire', KEYS[1], 100) redis.call('del', KEYS[1])", []string{"ev"}).Err(); err != redis.Nil {
		t.Fatalf("eval = %v", err)
	}
	if got, want := next(3), []string{"set ev", "expire ev", "del ev"}; !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}

	// WATCH: a script writing the watched key aborts the transaction.
	w := e.client(2)
	err := w.Watch(ctx, func(tx *redis.Tx) error {
		if err := c.Eval(ctx, "return redis.call('set', KEYS[1], 'changed')", []string{"watched"}).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "watched", "mine", 0)
			return nil
		})
		return err
	}, "watched")
	if err != redis.TxFailedErr {
		t.Fatalf("watch = %v, want TxFailedErr", err)
	}
	if v, _ := c.Get(ctx, "watched").Result(); v != "changed" {
		t.Fatalf("watched = %q", v)
	}

	// A client blocked on a list is served by a script's push, after the
	// script: it pops the element the script pushed last.
	b := e.client(2)
	done := make(chan []string, 1)
	go func() {
		v, err := b.BLPop(ctx, 0, "queue").Result()
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	waitBlockedCount(t, c, 1)
	got, err := c.Eval(ctx, "redis.call('rpush', KEYS[1], 'a') redis.call('lpop', KEYS[1]) return redis.call('rpush', KEYS[1], 'b')", []string{"queue"}).Int64()
	if err != nil || got != 1 {
		t.Fatalf("eval = %v %v", got, err)
	}
	select {
	case v := <-done:
		if !slices.Equal(v, []string{"queue", "b"}) {
			t.Fatalf("blpop = %v", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("blocked client not served")
	}
}
