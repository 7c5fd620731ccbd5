package kv_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// TestCountDueFollowsReapsAndWrites: the key index's backlog count (from
// the store's count of due entries, not a walk) stays exact, with the due
// range's first and last due times, as the reaper deletes part of the
// backlog, more keys fall due, a due key gets a later expiry and another
// is deleted by a client, and when time is asked of an earlier instant.
func TestCountDueFollowsReapsAndWrites(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	t0 := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for i := range 30 {
			if _, err := tx.Set(fmt.Appendf(nil, "k%02d", i), []byte("v"), kv.SetOptions{ExpireAt: t0 + int64(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	src := s.Sources()[0]
	counter := src.(expiry.Counter)
	check := func(at time.Time, n int64, oldest, newest int64) {
		t.Helper()
		got, o, nw, err := counter.CountDue(t.Context(), at)
		if err != nil {
			t.Fatalf("CountDue: %v", err)
		}
		if got != n || (n > 0 && (o.UnixMilli() != oldest || nw.UnixMilli() != newest)) || (n == 0 && (!o.IsZero() || !nw.IsZero())) {
			t.Fatalf("CountDue(+%dms) = %d, %d, %d; want %d, %d, %d", at.UnixMilli()-t0, got, o.UnixMilli()-t0, nw.UnixMilli()-t0, n, oldest-t0, newest-t0)
		}
	}
	at := func(ms int64) time.Time { return time.UnixMilli(t0 + ms) }
	// Key i is due at t0+i+1.
	check(at(10), 10, t0+1, t0+10)
	check(at(0), 0, 0, 0)
	if r, err := expiry.Drain(t.Context(), src, at(10), 4, 4); err != nil || r.Items != 4 {
		t.Fatalf("reap: %+v %v", r, err)
	}
	check(at(10), 6, t0+5, t0+10)
	check(at(20), 16, t0+5, t0+20)
	do(t, s, func(tx *kv.Tx) error {
		tx.SetNow(at(0))
		if _, err := tx.Set([]byte("k06"), []byte("v"), kv.SetOptions{ExpireAt: t0 + 1000}); err != nil {
			return err
		}
		_, err := tx.Del([][]byte{[]byte("k19")})
		return err
	})
	check(at(20), 14, t0+5, t0+19)
	check(at(5), 1, t0+5, t0+5)
	if r, err := expiry.Drain(t.Context(), src, at(40), 0, 0); err != nil || r.Items != 24 {
		t.Fatalf("reap the rest: %+v %v", r, err)
	}
	check(at(40), 0, 0, 0)
	check(at(1001), 1, t0+1001, t0+1001)
}
