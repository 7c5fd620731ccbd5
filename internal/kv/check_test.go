package kv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// checkStore is a Store on in-memory storage with a clock tests move.
type checkStore struct {
	*Store
	st  *storage.Store
	now int64 // Unix ms
}

func openCheckStore(t *testing.T) *checkStore {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := &checkStore{st: st, now: 1_700_000_000_000}
	cs.Store, err = Open(t.Context(), Options{Store: st, Now: func() time.Time { return time.UnixMilli(cs.now) }})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// run runs f in one Tx on logical database db and commits it.
func (cs *checkStore) run(t *testing.T, db int, f func(tx *Tx) error) {
	t.Helper()
	tx := cs.Begin()
	if err := tx.Use(db); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// write commits f's writes straight to storage, bypassing every
// invariant of the package.
func (cs *checkStore) write(t *testing.T, f func(b *storage.Batch) error) {
	t.Helper()
	b := cs.st.NewBatch()
	defer b.Close()
	if err := f(b); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// meta returns the physical database of logical db and the record of key
// there.
func (cs *checkStore) meta(t *testing.T, db int, key string) (byte, Meta) {
	t.Helper()
	pdb := cs.dbmap[db]
	v, err := cs.st.Get(metaKey(nil, pdb, []byte(key)))
	if err != nil {
		t.Fatalf("record of %q: %v", key, err)
	}
	m, err := decodeMeta(v)
	if err != nil {
		t.Fatal(err)
	}
	return pdb, m
}

func bs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

// populate writes keys of every type into a store, through the commands:
// expiring keys and fields, a list whose head moved, overwritten, deleted,
// renamed, moved and copied collections (whose old versions wait for the
// collector), swapped databases and a key that expired but is not reaped.
func populate(t *testing.T, cs *checkStore) {
	t.Helper()
	now := cs.now
	cs.run(t, 0, func(tx *Tx) error {
		steps := []func() error{
			func() error { _, err := tx.Set([]byte("s"), []byte("v"), SetOptions{}); return err },
			func() error {
				_, err := tx.Set([]byte("se"), []byte("v"), SetOptions{ExpireAt: now + 10_000})
				return err
			},
			func() error {
				_, err := tx.Set([]byte("soon"), []byte("v"), SetOptions{ExpireAt: now + 10})
				return err
			},
			func() error { _, err := tx.Push([]byte("l"), ListRight, false, bs("a", "b", "c")); return err },
			func() error { _, err := tx.Push([]byte("l"), ListLeft, false, bs("z", "y")); return err },
			func() error { _, _, err := tx.Pop([]byte("l"), ListLeft, 1); return err },
			func() error { _, err := tx.Expire([]byte("l"), now+20_000, ExpireAlways); return err },
			func() error { _, err := tx.Push([]byte("l2"), ListRight, false, bs("a")); return err },
			func() error { _, err := tx.SAdd([]byte("set"), bs("a", "b", "c", "d")); return err },
			func() error { _, err := tx.SRem([]byte("set"), bs("b")); return err },
			func() error { _, err := tx.SAdd([]byte("gone"), bs("a", "b")); return err },
			func() error { _, err := tx.HSet([]byte("h"), bs("f1", "v1", "f2", "v2", "f3", "v3")); return err },
			func() error {
				_, err := tx.HExpire([]byte("h"), now+5_000, HExpireAlways, bs("f1"))
				return err
			},
			func() error {
				_, err := tx.HExpire([]byte("h"), now+9_000, HExpireAlways, bs("f2"))
				return err
			},
			func() error { _, err := tx.HSet([]byte("h2"), bs("f", "v")); return err },
			func() error {
				_, err := tx.ZAdd([]byte("z"), ZAddOptions{}, []float64{1, -2.5, math.Inf(1), 0}, bs("a", "b", "c", "d"))
				return err
			},
			func() error { _, err := tx.ZAdd([]byte("z"), ZAddOptions{}, []float64{7}, bs("a")); return err },
			func() error { return populateStream(tx) },
		}
		for _, f := range steps {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	})
	cs.run(t, 0, func(tx *Tx) error {
		if _, err := tx.Del(bs("gone")); err != nil {
			return err
		}
		if _, err := tx.Set([]byte("l2"), []byte("now a string"), SetOptions{}); err != nil {
			return err
		}
		if _, err := tx.Rename([]byte("h"), []byte("hr"), false); err != nil {
			return err
		}
		if _, err := tx.Copy([]byte("hr"), []byte("hc"), 2, false); err != nil {
			return err
		}
		if _, err := tx.Move([]byte("z"), 1); err != nil {
			return err
		}
		return tx.SwapDB(0, 3)
	})
	cs.now += 100 // "soon" has expired and is still stored
}

// Ensure that a store written only through the commands, with keys of
// every type, passes the check: before and after the collector runs, and
// after a reopen rebuilt the counters.
func TestCheckHealthyStore(t *testing.T) {
	cs := openCheckStore(t)
	if err := cs.Check(t.Context()); err != nil {
		t.Fatalf("empty store: %v", err)
	}
	populate(t, cs)
	if err := cs.Check(t.Context()); err != nil {
		t.Fatalf("populated store: %v", err)
	}
	if n, err := cs.CollectGarbage(t.Context(), 0); err != nil || n == 0 {
		t.Fatalf("CollectGarbage = %d, %v; want the dropped versions collected", n, err)
	}
	if err := cs.Check(t.Context()); err != nil {
		t.Fatalf("after the collector: %v", err)
	}
	reopened, err := Open(t.Context(), Options{Store: cs.st, Now: func() time.Time { return time.UnixMilli(cs.now) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := reopened.Check(t.Context()); err != nil {
		t.Fatalf("reopened: %v", err)
	}
	cs.run(t, 3, func(tx *Tx) error { return tx.FlushDB() })
	if err := cs.Check(t.Context()); err != nil {
		t.Fatalf("after FLUSHDB: %v", err)
	}
}

// Ensure that each kind of damage, written straight to storage, is
// reported with its kind.
func TestCheckFindsProblems(t *testing.T) {
	set := func(k, v []byte) func(*storage.Batch) error {
		return func(b *storage.Batch) error { return b.Set(k, v) }
	}
	del := func(k []byte) func(*storage.Batch) error {
		return func(b *storage.Batch) error { return b.Delete(k) }
	}
	elem := func(pdb byte, v uint64, parts ...[]byte) []byte {
		k := subPrefix(pdb, v)
		for _, p := range parts {
			k = append(k, p...)
		}
		return k
	}
	with := func(m Meta, f func(p []byte)) []byte {
		p := append([]byte(nil), m.Payload...)
		f(p)
		m.Payload = p
		return m.encode(nil)
	}
	// Logical database 0 holds what populate wrote there before SWAPDB 0 3.
	const db = 3
	tests := []struct {
		name   string
		damage func(t *testing.T, cs *checkStore) func(*storage.Batch) error
		want   ProblemKind
	}{
		{"expiry entry of no key", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			return set(expiryKey(nil, cs.dbmap[db], cs.now+777, []byte("nokey")), nil)
		}, ProblemExpiryIndex},
		{"expiry not indexed", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "se")
			return del(expiryKey(nil, pdb, m.ExpireAt, []byte("se")))
		}, ProblemExpiryIndex},
		{"expiry entry at another time", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "se")
			return set(expiryKey(nil, pdb, m.ExpireAt+1, []byte("se")), nil)
		}, ProblemExpiryIndex},
		{"key written around the counters", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			m := Meta{Type: TypeString, Payload: []byte("v")}
			return set(metaKey(nil, cs.dbmap[db], []byte("extra")), m.encode(nil))
		}, ProblemCounters},
		{"set member beyond the count", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "set")
			return set(elem(pdb, m.Version, []byte("x")), nil)
		}, ProblemCount},
		{"list element missing", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "l")
			return del(elem(pdb, m.Version, m.Payload[8:16]))
		}, ProblemCount},
		{"list element outside its bounds", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "l")
			return set(elem(pdb, m.Version, u64(binary.BigEndian.Uint64(m.Payload[16:24])+5)), []byte("x"))
		}, ProblemCount},
		{"empty collection", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "set")
			return set(metaKey(nil, pdb, []byte("set")), with(m, func(p []byte) { binary.BigEndian.PutUint64(p, 0) }))
		}, ProblemCount},
		{"stream entry beyond its length", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "st")
			return set(elem(pdb, m.Version, []byte{streamEntryNS}, StreamID{1, 9}.encode(nil)), encodeStreamEntry(1, bs("f", "v")))
		}, ProblemCount},
		{"pending entry of no consumer", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "st")
			v := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 1)
			return set(elem(pdb, m.Version, []byte{streamPendingNS}, groupScope([]byte("g")), StreamID{1, 2}.encode(nil)), append(v, "ghost"...))
		}, ProblemCount},
		{"hash count", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "h2")
			return set(elem(pdb, m.Version, []byte{hashFieldNS}, []byte("g")), encodeFieldRec(0, []byte("v")))
		}, ProblemCount},
		{"field expiry not in the time index", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "hr")
			return set(elem(pdb, m.Version, []byte{hashFieldNS}, []byte("f3")), encodeFieldRec(cs.now+50_000, []byte("v3")))
		}, ProblemFieldExpiry},
		{"time index entry of a field without expiry", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "hr")
			return set(elem(pdb, m.Version, []byte{hashTimeNS}, u64(uint64(cs.now+50_000)), []byte("f3")), nil)
		}, ProblemFieldExpiry},
		{"time index entry of no field", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "hr")
			return set(elem(pdb, m.Version, []byte{hashTimeNS}, u64(uint64(cs.now+50_000)), []byte("nofield")), nil)
		}, ProblemFieldExpiry},
		{"earliest field expiry", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "hr")
			return set(metaKey(nil, pdb, []byte("hr")), with(m, func(p []byte) {
				binary.BigEndian.PutUint64(p[8:16], binary.BigEndian.Uint64(p[8:16])+1)
			}))
		}, ProblemFieldExpiry},
		{"hash missing from the field expiry index", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "hr")
			return del(fieldIndexKey(pdb, int64(binary.BigEndian.Uint64(m.Payload[8:16])), []byte("hr")))
		}, ProblemFieldExpiry},
		{"score index entry missing", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, 1, "z")
			return del(elem(pdb, m.Version, []byte{zsetScoreNS}, u64(encodeScore(7)), []byte("a")))
		}, ProblemScoreIndex},
		{"score index entry at another score", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, 1, "z")
			return set(elem(pdb, m.Version, []byte{zsetScoreNS}, u64(encodeScore(1)), []byte("a")), nil)
		}, ProblemScoreIndex},
		{"garbage record of a live version", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "set")
			return set(garbageKey(pdb, m.Version), nil)
		}, ProblemGarbage},
		{"elements of no key", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			return set(elem(cs.dbmap[db], 1<<40, []byte("x")), nil)
		}, ProblemOrphan},
		{"elements in another database than their key", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			_, m := cs.meta(t, db, "set")
			return set(elem(cs.dbmap[5], m.Version, []byte("x")), nil)
		}, ProblemOrphan},
		{"two keys of one version", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			pdb, m := cs.meta(t, db, "set")
			return set(metaKey(nil, pdb, []byte("set2")), m.encode(nil))
		}, ProblemVersion},
		{"undecodable record", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			return set(metaKey(nil, cs.dbmap[db], []byte("bad")), []byte{0x7f})
		}, ProblemCorrupt},
		{"database byte out of range", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			return set([]byte{storage.PrefixRedisSub, 0x20, 1, 2, 3, 4, 5, 6, 7, 8}, nil)
		}, ProblemCorrupt},
		{"database map", func(t *testing.T, cs *checkStore) func(*storage.Batch) error {
			return set(dbmapKey(), make([]byte, NumDBs))
		}, ProblemCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := openCheckStore(t)
			populate(t, cs)
			if err := cs.Check(t.Context()); err != nil {
				t.Fatalf("before the damage: %v", err)
			}
			cs.write(t, tt.damage(t, cs))
			err := cs.Check(t.Context())
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v, want a *CheckError", err)
			}
			t.Logf("report:\n%v", err)
			if !ce.Has(tt.want) {
				t.Fatalf("Check reported\n%v\nwant a problem of kind %q", err, tt.want)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "kv: check") {
					t.Fatalf("report line %q does not start with \"kv: check\"", line)
				}
			}
		})
	}
}

// Ensure that a report lists at most maxProblems problems and counts the
// others, and names the logical database and the key.
func TestCheckErrorBounded(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error { return tx.SwapDB(0, 4) })
	cs.write(t, func(b *storage.Batch) error {
		for i := range maxProblems + 50 {
			if err := b.Set(expiryKey(nil, cs.dbmap[0], cs.now, fmt.Appendf(nil, "k%03d", i)), nil); err != nil {
				return err
			}
		}
		return nil
	})
	err := cs.Check(t.Context())
	var ce *CheckError
	if !errors.As(err, &ce) || len(ce.Problems) != maxProblems || ce.More != 50 {
		t.Fatalf("Check = %v, want %d problems listed and 50 more", err, maxProblems)
	}
	want := fmt.Sprintf(`kv: check db 0 key "k000": expiry index: the expiry index has an entry at %d for a key that does not exist`, cs.now)
	if got := ce.Problems[0].String(); got != want {
		t.Fatalf("first problem\n  %s\nwant\n  %s", got, want)
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != maxProblems+1 || lines[maxProblems] != "kv: check: 50 more problems" {
		t.Fatalf("report of %d lines ending %q", len(lines), lines[len(lines)-1])
	}
}

// Ensure that Check stops when its context ends.
func TestCheckCancelled(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error {
		for i := range 5000 {
			if _, err := tx.Set(fmt.Appendf(nil, "k%d", i), []byte("v"), SetOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := cs.Check(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Check = %v, want context.Canceled", err)
	}
}

// Ensure that random commands of every type, the sweepers, the collector
// and the clock moving keep the keyspace consistent: Check, run after
// every step, finds nothing. (It proves the checker has no false alarms on
// states the commands reach, and the commands keep the invariants.)
func TestCheckAfterRandomCommands(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cs := openCheckStore(t)
		defer cs.st.Close()
		keys := []string{"a", "b", "c"}
		key := rapid.SampledFrom(keys)
		elems := rapid.SliceOfN(rapid.SampledFrom([]string{"x", "y", "z", "w"}), 1, 3)
		ttl := rapid.Int64Range(1, 2_000)
		ops := []func(tx *Tx) error{
			func(tx *Tx) error {
				o := SetOptions{}
				if rapid.Bool().Draw(rt, "expiring") {
					o.ExpireAt = cs.now + ttl.Draw(rt, "ttl")
				}
				_, err := tx.Set([]byte(key.Draw(rt, "key")), []byte("v"), o)
				return err
			},
			func(tx *Tx) error { _, err := tx.Del(bs(key.Draw(rt, "key"))); return err },
			func(tx *Tx) error {
				_, err := tx.Expire([]byte(key.Draw(rt, "key")), cs.now+ttl.Draw(rt, "ttl"), ExpireAlways)
				return err
			},
			func(tx *Tx) error { _, err := tx.Persist([]byte(key.Draw(rt, "key"))); return err },
			func(tx *Tx) error {
				end := ListEnd(rapid.IntRange(0, 1).Draw(rt, "end"))
				_, err := tx.Push([]byte(key.Draw(rt, "key")), end, false, bs(elems.Draw(rt, "elems")...))
				return err
			},
			func(tx *Tx) error {
				end := ListEnd(rapid.IntRange(0, 1).Draw(rt, "end"))
				_, _, err := tx.Pop([]byte(key.Draw(rt, "key")), end, rapid.Int64Range(1, 3).Draw(rt, "n"))
				return err
			},
			func(tx *Tx) error {
				return tx.LTrim([]byte(key.Draw(rt, "key")), rapid.Int64Range(-3, 3).Draw(rt, "start"), rapid.Int64Range(-3, 3).Draw(rt, "stop"))
			},
			func(tx *Tx) error {
				_, err := tx.SAdd([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "elems")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.SRem([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "elems")...))
				return err
			},
			func(tx *Tx) error {
				f := elems.Draw(rt, "fields")
				pairs := make([]string, 0, 2*len(f))
				for _, x := range f {
					pairs = append(pairs, x, "v")
				}
				_, err := tx.HSet([]byte(key.Draw(rt, "key")), bs(pairs...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.HExpire([]byte(key.Draw(rt, "key")), cs.now+ttl.Draw(rt, "ttl"), HExpireAlways, bs(elems.Draw(rt, "fields")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.HDel([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "fields")...))
				return err
			},
			func(tx *Tx) error { _, err := tx.HGetAll([]byte(key.Draw(rt, "key"))); return err },
			func(tx *Tx) error {
				m := elems.Draw(rt, "members")
				scores := make([]float64, len(m))
				for i := range scores {
					scores[i] = float64(rapid.IntRange(-2, 2).Draw(rt, "score"))
				}
				_, err := tx.ZAdd([]byte(key.Draw(rt, "key")), ZAddOptions{}, scores, bs(m...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.ZRem([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "members")...))
				return err
			},
			func(tx *Tx) error { _, _, err := tx.Get([]byte(key.Draw(rt, "key"))); return err },
			func(tx *Tx) error {
				_, err := tx.Rename([]byte(key.Draw(rt, "src")), []byte(key.Draw(rt, "dst")), false)
				if errors.Is(err, ErrNoSuchKey) {
					return nil
				}
				return err
			},
			func(tx *Tx) error {
				_, err := tx.Copy([]byte(key.Draw(rt, "src")), []byte(key.Draw(rt, "dst")), rapid.IntRange(0, 1).Draw(rt, "db"), true)
				if errors.Is(err, ErrSameObject) {
					return nil
				}
				return err
			},
			func(tx *Tx) error {
				_, err := tx.Move([]byte(key.Draw(rt, "key")), 1-tx.DB())
				return err
			},
			func(tx *Tx) error { return tx.SwapDB(0, 1) },
			func(tx *Tx) error {
				if rapid.IntRange(0, 9).Draw(rt, "flush") == 0 {
					return tx.FlushDB()
				}
				return nil
			},
		}
		for step := range 40 {
			switch rapid.IntRange(0, 9).Draw(rt, "what") {
			case 0:
				cs.now += ttl.Draw(rt, "advance")
			case 1:
				now := time.UnixMilli(cs.now)
				for _, src := range append(cs.Sources(), cs.FieldSources()...) {
					if _, err := expiry.Drain(t.Context(), src, now, 0, 2); err != nil {
						rt.Fatal(err)
					}
				}
			case 2:
				if _, err := cs.CollectGarbage(t.Context(), 0); err != nil {
					rt.Fatal(err)
				}
			default:
				op := rapid.IntRange(0, len(ops)-1).Draw(rt, "op")
				db := rapid.IntRange(0, 1).Draw(rt, "db")
				tx := cs.Begin()
				tx.Use(db)
				err := ops[op](tx)
				if err != nil && !errors.Is(err, ErrWrongType) {
					tx.Rollback()
					rt.Fatalf("step %d: op %d: %v", step, op, err)
				}
				if err := tx.Commit(); err != nil {
					rt.Fatal(err)
				}
			}
			if err := cs.Check(t.Context()); err != nil {
				rt.Fatalf("step %d: %v", step, err)
			}
		}
	})
}

// populateStream writes a stream with entries, a deletion, a trim, two
// groups, consumers and pending entries, one of them acknowledged.
func populateStream(tx *Tx) error {
	key := []byte("st")
	for i := uint64(1); i <= 5; i++ {
		if _, _, err := tx.XAdd(key, XAddArgs{ID: StreamID{1, i}, IDGiven: true, SeqGiven: true}, bs("f", "v")); err != nil {
			return err
		}
	}
	if _, err := tx.XDel(key, []StreamID{{1, 3}}); err != nil {
		return err
	}
	if _, err := tx.XTrim(key, StreamTrim{Strategy: TrimMaxLen, MaxLen: 3}); err != nil {
		return err
	}
	for _, g := range []string{"g", "h"} {
		if err := tx.XGroupCreate(key, []byte(g), StreamID{}, false, false, -1); err != nil {
			return err
		}
	}
	if _, err := tx.XReadGroup(key, XReadGroupArgs{Group: []byte("g"), Consumer: []byte("c1"), New: true, Count: 2}); err != nil {
		return err
	}
	if _, err := tx.XReadGroup(key, XReadGroupArgs{Group: []byte("g"), Consumer: []byte("c2"), New: true}); err != nil {
		return err
	}
	if _, err := tx.XClaim(key, []byte("g"), []byte("c2"), []StreamID{{1, 2}}, XClaimArgs{DeliveryTime: -1, RetryCount: -1}); err != nil {
		return err
	}
	if _, err := tx.XAck(key, []byte("g"), []StreamID{{1, 4}}); err != nil {
		return err
	}
	_, err := tx.XGroupCreateConsumer(key, []byte("h"), []byte("idle"))
	return err
}
