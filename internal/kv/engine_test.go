package kv_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// TestWithExpiryEngine wires the key sources to the real sweeper inside a
// synctest bubble: keys are deleted soon after they expire, without a read,
// each with one `expired` event, and Wake brings an earlier expiry forward.
func TestWithExpiryEngine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		eng, err := expiry.New(expiry.Config{Now: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		s, err := kv.Open(t.Context(), kv.Options{Store: st, Now: time.Now, Waker: eng})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		s.SetObserver(rec)
		s.SetNotifyMask(kv.ClassExpired)
		for _, src := range s.Sources() {
			if err := eng.Register(src); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- eng.Run(ctx) }()

		now := time.Now().UnixMilli()
		do(t, s, func(tx *kv.Tx) error {
			for i, ttl := range []int64{5_000, 2_000, 90_000} {
				if _, err := tx.Set([]byte{'k', byte('0' + i)}, []byte("v"), kv.SetOptions{ExpireAt: now + ttl}); err != nil {
					return err
				}
			}
			return nil
		})
		// The sweeper wakes for the next due key, not on a 60 s poll.
		time.Sleep(2500 * time.Millisecond) // fake time in the bubble
		synctest.Wait()
		if got := rec.names(); len(got) != 1 || got[0] != "expired:k1" {
			t.Fatalf("events after 2.5s %v", got)
		}
		// A new, earlier expiry is brought forward by Wake.
		do(t, s, func(tx *kv.Tx) error {
			_, err := tx.Expire([]byte("k2"), time.Now().UnixMilli()+500, kv.ExpireAlways)
			return err
		})
		time.Sleep(time.Second)
		synctest.Wait()
		if got := rec.names(); len(got) != 1 || got[0] != "expired:k2" {
			t.Fatalf("events after the earlier expiry %v", got)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if n := dbsize(t, s); n != 0 {
			t.Fatalf("dbsize after 6.5s = %d", n)
		}
		if got := rec.names(); len(got) != 1 || got[0] != "expired:k0" {
			t.Fatalf("events %v", got)
		}
		if st := s.Stats(); st.ExpiredKeys != 3 || st.LazyExpiredKeys != 0 {
			t.Fatalf("stats %+v", st)
		}
		cancel()
		<-done
		eng.Close()
	})
}
