package kv

import (
	"encoding/binary"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/storage"
)

// internalStore opens a store on in-memory storage whose clock is *now
// (Unix ms).
func internalStore(t testing.TB, now *int64) *Store {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := Open(t.Context(), Options{Store: st, Now: func() time.Time { return time.UnixMilli(*now) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hashFigures returns the stored figures of the hash at key (count,
// earliest, expiring fields, latest), the same figures computed from its
// fields, and how many fields are alive at tx's now; found is false when
// there is no record.
func hashFigures(t interface {
	Helper()
	Fatalf(string, ...any)
}, tx *Tx, key string) (stored, actual [4]int64, live int64, found bool) {
	t.Helper()
	m, ok, err := tx.getMeta(tx.pdb, []byte(key))
	if err != nil || !ok || m.expiredAt(tx.now) {
		return stored, actual, 0, false
	}
	if len(m.Payload) != hashPayloadLen {
		t.Fatalf("record of %d bytes", len(m.Payload))
	}
	for i := range stored {
		stored[i] = int64(binary.BigEndian.Uint64(m.Payload[8*i:]))
	}
	h := hashState{version: m.Version}
	keys, vals, err := tx.collMembers(m.Version, []byte{hashFieldNS})
	if err != nil {
		t.Fatalf("fields: %v", err)
	}
	actual[0] = int64(len(keys))
	for i := range keys {
		r, err := decodeFieldRec(vals[i])
		if err != nil {
			t.Fatalf("field record: %v", err)
		}
		if r.at == 0 || r.at >= tx.now {
			live++
		}
		if r.at == 0 {
			continue
		}
		actual[2]++
		if actual[1] == 0 || r.at < actual[1] {
			actual[1] = r.at
		}
		actual[3] = max(actual[3], r.at)
		if _, err := tx.reader().Get(tx.hashTimeKey(&h, r.at, keys[i])); err != nil {
			t.Fatalf("field %q at %d has no time index entry: %v", keys[i], r.at, err)
		}
	}
	return stored, actual, live, true
}

// TestHashFiguresProperty runs random field and expiry commands, moving the
// clock, and checks after each that the record's figures equal those of
// its fields and that the hash is visible exactly when a field is alive.
func TestHashFiguresProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		now := int64(1_700_000_000_000)
		s := internalStore(t, &now)
		k := []byte("h")
		fieldGen := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		atGen := func(rt *rapid.T) int64 { return now + rapid.Int64Range(-50, 400).Draw(rt, "in") }
		f := func(rt *rapid.T) [][]byte { return [][]byte{[]byte(fieldGen.Draw(rt, "f"))} }
		for range 40 {
			tx := s.Begin()
			var err error
			switch rapid.IntRange(0, 8).Draw(rt, "op") {
			case 0:
				_, err = tx.HSet(k, append(f(rt), []byte("v")))
			case 1:
				_, err = tx.HDel(k, f(rt))
			case 2, 3:
				_, err = tx.HExpire(k, atGen(rt), HExpireCond(rapid.IntRange(0, 4).Draw(rt, "cond")), f(rt))
			case 4:
				_, err = tx.HPersist(k, f(rt))
			case 5:
				_, err = tx.HSetEx(k, HSetExAlways, HSetExMode(rapid.IntRange(0, 2).Draw(rt, "mode")), atGen(rt), append(f(rt), []byte("x")))
			case 6:
				_, err = tx.HIncrBy(k, f(rt)[0], 1)
			case 7:
				_, err = tx.HGetEx(k, HGetExMode(rapid.IntRange(0, 2).Draw(rt, "mode")), atGen(rt), f(rt))
			case 8:
				_, err = tx.HGetDel(k, f(rt))
			}
			if err != nil && err != ErrHashNotInteger {
				rt.Fatalf("command: %v", err)
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			now += rapid.Int64Range(0, 200).Draw(rt, "advance")
			tx = s.Begin()
			stored, actual, live, found := hashFigures(rt, tx, "h")
			tx.Rollback()
			if found && stored != actual {
				rt.Fatalf("stored figures %v, fields say %v", stored, actual)
			}
			tx = s.Begin()
			n, err := tx.Exists([][]byte{k})
			if err != nil {
				rt.Fatal(err)
			}
			hlen, err := tx.HLen(k)
			if err != nil {
				rt.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			if (n == 1) != (live > 0) || hlen != live {
				rt.Fatalf("EXISTS %d, HLEN %d with %d live fields", n, hlen, live)
			}
		}
	})
}

// TestHashFirstFormatRecord checks that a record written before the
// expiring-field count and the latest expiry existed (16 bytes of payload)
// is judged by a walk of its time index and rewritten whole by the next
// change.
func TestHashFirstFormatRecord(t *testing.T) {
	now := int64(1_700_000_000_000)
	s := internalStore(t, &now)
	k := []byte("h")
	run := func(f func(tx *Tx) error) {
		t.Helper()
		tx := s.Begin()
		if err := f(tx); err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	truncate := func() {
		t.Helper()
		run(func(tx *Tx) error {
			m, ok, err := tx.getMeta(tx.pdb, k)
			if err != nil || !ok {
				t.Fatalf("no record: %v", err)
			}
			old := m
			m.Payload = append([]byte(nil), m.Payload[:hashPayloadLenV1]...)
			return tx.PutMeta(k, old, true, m)
		})
	}
	run(func(tx *Tx) error {
		if _, err := tx.HSet(k, [][]byte{[]byte("a"), []byte("1"), []byte("b"), []byte("2")}); err != nil {
			return err
		}
		_, err := tx.HExpire(k, now+100, HExpireAlways, [][]byte{[]byte("a")})
		return err
	})
	truncate()
	now += 200
	// One persistent field: visible, and HLEN's lazy expiry rewrites the
	// record with exact figures.
	run(func(tx *Tx) error {
		if n, err := tx.Exists([][]byte{k}); n != 1 || err != nil {
			t.Errorf("EXISTS %d %v", n, err)
		}
		n, err := tx.HLen(k)
		if n != 1 {
			t.Errorf("HLEN %d", n)
		}
		return err
	})
	run(func(tx *Tx) error {
		stored, actual, _, ok := hashFigures(t, tx, "h")
		if !ok || stored != actual {
			t.Errorf("after rewrite: %v, want %v", stored, actual)
		}
		_, err := tx.HExpire(k, now+100, HExpireAlways, [][]byte{[]byte("b")})
		return err
	})
	truncate()
	now += 200
	run(func(tx *Tx) error {
		if n, err := tx.DBSize(); n != 0 || err != nil {
			t.Errorf("DBSIZE %d %v", n, err)
		}
		if n, err := tx.Exists([][]byte{k}); n != 0 || err != nil {
			t.Errorf("EXISTS %d %v", n, err)
		}
		return nil
	})
	if n := s.ExpiredFields(); n != 2 {
		t.Fatalf("expired fields %d", n)
	}
}
