package kv_test

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

func access(t *testing.T, s *kv.Store, key string) kv.KeyAccess {
	t.Helper()
	var a kv.KeyAccess
	do(t, s, func(tx *kv.Tx) error {
		var ok bool
		var err error
		a, ok, err = tx.Access([]byte(key))
		if !ok && err == nil {
			t.Fatalf("%s is missing", key)
		}
		return err
	})
	return a
}

func TestAccessClockIdleTime(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	c.Advance(400 * time.Millisecond) // idle counts whole seconds of the clock
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("k"), []byte("v"), kv.SetOptions{})
		return err
	})
	cases := []struct {
		name    string
		advance time.Duration
		op      func(tx *kv.Tx) error
		want    int64 // OBJECT IDLETIME after op
	}{
		{"created", 0, nil, 0},
		{"ten seconds later", 10 * time.Second, nil, 10},
		{"EXISTS does not touch", time.Second, func(tx *kv.Tx) error { _, err := tx.Exists(bs("k")); return err }, 11},
		{"TYPE does not touch", time.Second, func(tx *kv.Tx) error { _, err := tx.Type([]byte("k")); return err }, 12},
		{"OBJECT ENCODING does not touch", time.Second, func(tx *kv.Tx) error { _, _, err := tx.ReadValue([]byte("k"), nil, false); return err }, 13},
		{"KEYS does not touch", time.Second, func(tx *kv.Tx) error { _, err := tx.Keys([]byte("*")); return err }, 14},
		{"GET touches", 5 * time.Second, func(tx *kv.Tx) error { _, _, err := tx.Get([]byte("k")); return err }, 0},
		{"less than a second", 700 * time.Millisecond, nil, 1}, // 0.4 s -> 1.1 s of the clock
		{"TOUCH touches", time.Minute, func(tx *kv.Tx) error {
			n, err := tx.Touch(bs("k", "missing", "k"))
			if n != 2 {
				t.Errorf("TOUCH counted %d", n)
			}
			return err
		}, 0},
		{"a write touches", time.Hour, func(tx *kv.Tx) error { _, err := tx.Append([]byte("k"), []byte("x")); return err }, 0},
		{"an hour idle", time.Hour, nil, 3600},
	}
	for _, cs := range cases {
		c.Advance(cs.advance)
		if cs.op != nil {
			do(t, s, cs.op)
		}
		if got := access(t, s, "k").IdleSeconds; got != cs.want {
			t.Errorf("%s: idle %d, want %d", cs.name, got, cs.want)
		}
	}
	do(t, s, func(tx *kv.Tx) error {
		if _, ok, err := tx.Access([]byte("missing")); ok || err != nil {
			t.Errorf("a missing key: %v %v", ok, err)
		}
		return nil
	})
}

func TestAccessClockPerDatabaseAndExpiry(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Set([]byte("k"), []byte("0"), kv.SetOptions{}); err != nil {
			return err
		}
		if err := tx.Use(1); err != nil {
			return err
		}
		_, err := tx.Set([]byte("k"), []byte("1"), kv.SetOptions{})
		return err
	})
	c.Advance(30 * time.Second)
	do(t, s, func(tx *kv.Tx) error {
		if err := tx.Use(1); err != nil {
			return err
		}
		_, _, err := tx.Get([]byte("k"))
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		a0, _, err := tx.Access([]byte("k"))
		if err != nil {
			return err
		}
		if err := tx.Use(1); err != nil {
			return err
		}
		a1, _, err := tx.Access([]byte("k"))
		if a0.IdleSeconds != 30 || a1.IdleSeconds != 0 {
			t.Errorf("db0 idle %d, db1 idle %d", a0.IdleSeconds, a1.IdleSeconds)
		}
		return err
	})
	// An expired key has no idle time: it is gone.
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Expire([]byte("k"), now+31_000, kv.ExpireAlways)
		return err
	})
	c.Advance(2 * time.Second)
	do(t, s, func(tx *kv.Tx) error {
		if _, ok, err := tx.Access([]byte("k")); ok || err != nil {
			t.Errorf("expired key: %v %v", ok, err)
		}
		return nil
	})
}

func TestAccessClockLFU(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("k"), []byte("v"), kv.SetOptions{})
		return err
	})
	if f := access(t, s, "k").Freq; f != 5 {
		t.Fatalf("a new key's counter %d, want LFU_INIT_VAL 5", f)
	}
	get := func() {
		do(t, s, func(tx *kv.Tx) error { _, _, err := tx.Get([]byte("k")); return err })
	}
	get() // from LFU_INIT_VAL the first increment is certain
	if f := access(t, s, "k").Freq; f != 6 {
		t.Fatalf("after one GET %d, want 6", f)
	}
	for range 2000 {
		get()
	}
	hot := access(t, s, "k").Freq
	// 1/(base*10+1) per access: 2,000 accesses reach about 5+sqrt(2*2000/10).
	if hot < 15 || hot > 40 {
		t.Fatalf("after 2,000 GETs %d", hot)
	}
	c.Advance(3 * time.Minute) // one point per minute (lfu-decay-time 1)
	if f := access(t, s, "k").Freq; f != hot-3 {
		t.Fatalf("after 3 idle minutes %d, want %d", f, hot-3)
	}
	c.Advance(time.Hour)
	if f := access(t, s, "k").Freq; f != 0 {
		t.Fatalf("after an idle hour %d", f)
	}
}
