package kv_test

import (
	"fmt"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// randomKeys draws RANDOMKEY draws times and counts each key.
func randomKeys(t *testing.T, s *kv.Store, draws int) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for range draws {
		do(t, s, func(tx *kv.Tx) error {
			k, ok, err := tx.RandomKey()
			if err != nil || !ok {
				return fmt.Errorf("RANDOMKEY: %q %v %v", k, ok, err)
			}
			seen[string(k)]++
			return nil
		})
	}
	return seen
}

// TestRandomKeyReturnsEveryKey: keys that share a long prefix (as "key:1"
// to "key:8" do) all come back, in a small database about equally often,
// and in a large one each of a sample too.
func TestRandomKeyReturnsEveryKey(t *testing.T) {
	s, _, _, _, _ := newStore(t)
	do(t, s, func(tx *kv.Tx) error {
		for i := 1; i <= 8; i++ {
			if _, err := tx.Set([]byte(fmt.Sprintf("key:%d", i)), []byte("v"), kv.SetOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	seen := randomKeys(t, s, 800)
	if len(seen) != 8 {
		t.Fatalf("8 keys, %d came back: %v", len(seen), seen)
	}
	for k, n := range seen {
		if n < 40 { // 100 expected; below 40 has odds far under one in a billion
			t.Fatalf("%s came back %d times of 800: %v", k, n, seen)
		}
	}

	// A large database: keys of the same prefix and length.
	const large = 5000
	do(t, s, func(tx *kv.Tx) error {
		for i := range large {
			if _, err := tx.Set([]byte(fmt.Sprintf("user:%06d", i)), []byte("v"), kv.SetOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	seen = randomKeys(t, s, 3000)
	if len(seen) < 1000 {
		t.Fatalf("%d distinct keys of %d in 3000 draws", len(seen), large+8)
	}
}

// TestRandomKeySkipsExpired: a key whose time has passed is never picked,
// and a database of only expired keys has none.
func TestRandomKeySkipsExpired(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	do(t, s, func(tx *kv.Tx) error {
		now := c.Now().UnixMilli()
		for i := range 20 {
			if _, err := tx.Set([]byte(fmt.Sprintf("gone:%d", i)), []byte("v"), kv.SetOptions{ExpireAt: now + 10}); err != nil {
				return err
			}
		}
		_, err := tx.Set([]byte("live"), []byte("v"), kv.SetOptions{})
		return err
	})
	c.Advance(20_000_000)
	if seen := randomKeys(t, s, 50); len(seen) != 1 || seen["live"] != 50 {
		t.Fatalf("RANDOMKEY over expired keys: %v", seen)
	}
	do(t, s, func(tx *kv.Tx) error { _, err := tx.Del([][]byte{[]byte("live")}); return err })
	do(t, s, func(tx *kv.Tx) error {
		if k, ok, err := tx.RandomKey(); ok || err != nil {
			t.Fatalf("RANDOMKEY of expired keys only: %q %v %v", k, ok, err)
		}
		return nil
	})
}
