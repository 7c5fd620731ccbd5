package resp_test

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
	"github.com/mayfly/mayfly/internal/wire/resp"
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
	waitBlockedCount(t, e, 1)
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

// tickingClock moves one millisecond every time it is read.
type tickingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// TestEvalFreezesTime checks that a script sees one time from its start to
// its end, as in Redis 7, on a clock that moves at every read: a key set
// to expire in 3 ms outlives ten reads inside the script, not outside it.
func TestEvalFreezesTime(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := &tickingClock{t: time.UnixMilli(start0)}
	k, err := kv.Open(t.Context(), kv.Options{Store: st, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := resp.NewServer(resp.Options{KV: k})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
		st.Close()
	})
	c := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), PoolSize: 1, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	got, err := c.Eval(ctx, `redis.call('set', KEYS[1], 'v', 'px', 3)
for i = 1, 10 do redis.call('get', KEYS[1]) end
return {redis.call('pttl', KEYS[1]), redis.call('get', KEYS[1])}`, []string{"k"}).Slice()
	if err != nil || len(got) != 2 || got[0] != int64(3) || got[1] != "v" {
		t.Fatalf("inside a script = %v %v, want [3 v]", got, err)
	}
	// The same commands pipelined read the clock once each.
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "k2", "v", 3*time.Millisecond)
		for range 10 {
			p.Get(ctx, "k2")
		}
		return nil
	})
	if err := cmds[len(cmds)-1].Err(); err != redis.Nil {
		t.Fatalf("pipelined: last GET = %v, want nil (expired)", err)
	}
}
