package kv

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// record returns the physical database of logical db 0 and key's record
// there, as a Tx sees it.
func (cs *checkStore) record(t *testing.T, key string) (byte, Meta, bool) {
	t.Helper()
	tx := cs.Begin()
	defer tx.Rollback()
	m, ok, err := tx.getMeta(tx.pdb, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	m.Payload = append([]byte(nil), m.Payload...)
	return tx.pdb, m, ok
}

// elemBytesOf returns the element bytes key's record keeps (failing when
// they are unknown or differ from a recount) and the key's counted memory.
func elemBytesOf(t *testing.T, cs *checkStore, key string) int64 {
	t.Helper()
	pdb, m, ok := cs.record(t, key)
	if !ok {
		t.Fatalf("%q is missing", key)
	}
	if m.ElemBytes < 0 {
		t.Fatalf("%q: element bytes unknown", key)
	}
	tx := cs.Begin()
	defer tx.Rollback()
	got, err := tx.recountElemBytes(pdb, m)
	if err != nil {
		t.Fatal(err)
	}
	if got != m.ElemBytes {
		t.Fatalf("%q: record says %d element bytes, a recount finds %d", key, m.ElemBytes, got)
	}
	n, ok, err := tx.MemoryUsage([]byte(key), 0)
	if err != nil || !ok {
		t.Fatalf("MEMORY USAGE %q: %v %v", key, ok, err)
	}
	if want := int64(keyOverhead+len(key)+len(m.Payload)) + m.ElemBytes + int64(m.Count())*elemOverhead; n != want {
		t.Fatalf("MEMORY USAGE %q = %d, want %d", key, n, want)
	}
	return m.ElemBytes
}

func wantElemBytes(t *testing.T, cs *checkStore, key string, want int64) {
	t.Helper()
	if got := elemBytesOf(t, cs, key); got != want {
		t.Fatalf("%q: %d element bytes, want %d", key, got, want)
	}
}

func gone(t *testing.T, cs *checkStore, key string) {
	t.Helper()
	if _, _, ok := cs.record(t, key); ok {
		t.Fatalf("%q still exists", key)
	}
}

func TestElemBytesHash(t *testing.T) {
	cs := openCheckStore(t)
	kb := strings.Repeat("v", 1024)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HSet([]byte("h"), bs("a", kb, "bb", "12")); return err })
	wantElemBytes(t, cs, "h", 1+1024+2+2)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HSet([]byte("h"), bs("a", "xyz")); return err }) // overwrite
	wantElemBytes(t, cs, "h", 1+3+2+2)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HSetNX([]byte("h"), []byte("a"), []byte(kb)); return err })
	wantElemBytes(t, cs, "h", 1+3+2+2)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HIncrBy([]byte("h"), []byte("bb"), 1000); return err }) // 12 -> 1012
	wantElemBytes(t, cs, "h", 1+3+2+4)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HDel([]byte("h"), bs("a", "missing")); return err })
	wantElemBytes(t, cs, "h", 2+4)
	// Field expiry: the lazy path (a read) and the field reaper both take
	// the expired fields' bytes off.
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HSet([]byte("h"), bs("c", kb, "d", kb)); return err })
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.HExpire([]byte("h"), cs.now+10, HExpireAlways, bs("c"))
		return err
	})
	wantElemBytes(t, cs, "h", 2+4+2*(1+1024))
	cs.now += 20
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HGetAll([]byte("h")); return err })
	wantElemBytes(t, cs, "h", 2+4+1+1024)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.HExpire([]byte("h"), cs.now+10, HExpireAlways, bs("d"))
		return err
	})
	cs.now += 20
	for _, src := range cs.FieldSources() {
		if _, err := expiry.Drain(t.Context(), src, time.UnixMilli(cs.now), 0, 10); err != nil {
			t.Fatal(err)
		}
	}
	wantElemBytes(t, cs, "h", 2+4)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HGetDel([]byte("h"), bs("bb")); return err })
	gone(t, cs, "h")
}

func TestElemBytesList(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.Push([]byte("l"), ListRight, false, bs("aaaa", "b", "cc", "b", "ddd"))
		return err
	})
	wantElemBytes(t, cs, "l", 11)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.Push([]byte("l"), ListLeft, false, bs("eeeee")); return err })
	wantElemBytes(t, cs, "l", 16) // eeeee aaaa b cc b ddd
	cs.run(t, 0, func(tx *Tx) error { return tx.LSet([]byte("l"), 1, []byte("a")) })
	wantElemBytes(t, cs, "l", 13) // eeeee a b cc b ddd
	cs.run(t, 0, func(tx *Tx) error { _, _, err := tx.Pop([]byte("l"), ListLeft, 2); return err })
	wantElemBytes(t, cs, "l", 7) // b cc b ddd
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.LInsert([]byte("l"), true, []byte("cc"), []byte("ffffff"))
		return err
	})
	wantElemBytes(t, cs, "l", 13) // b ffffff cc b ddd
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.LRem([]byte("l"), 0, []byte("b")); return err })
	wantElemBytes(t, cs, "l", 11) // ffffff cc ddd
	cs.run(t, 0, func(tx *Tx) error { return tx.LTrim([]byte("l"), 1, 1) })
	wantElemBytes(t, cs, "l", 2) // cc
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.Push([]byte("l"), ListRight, false, bs("zz", "y")); return err })
	cs.run(t, 0, func(tx *Tx) error { _, _, err := tx.LMove([]byte("l"), []byte("m"), ListLeft, ListRight); return err })
	wantElemBytes(t, cs, "l", 3) // zz y
	wantElemBytes(t, cs, "m", 2) // cc
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.SortStore([]byte("l"), SortOptions{Alpha: true, Count: -1}, []byte("sorted"))
		return err
	})
	wantElemBytes(t, cs, "sorted", 3)
	cs.run(t, 0, func(tx *Tx) error { _, _, err := tx.Pop([]byte("m"), ListRight, 5); return err })
	gone(t, cs, "m")
}

func TestElemBytesSet(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SAdd([]byte("s"), bs("aaa", "bb", "c", "bb")); return err })
	wantElemBytes(t, cs, "s", 6)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SAdd([]byte("t"), bs("bb", "dddd")); return err })
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SRem([]byte("s"), bs("c", "zz")); return err })
	wantElemBytes(t, cs, "s", 5)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SMove([]byte("s"), []byte("t"), []byte("aaa")); return err })
	wantElemBytes(t, cs, "s", 2)
	wantElemBytes(t, cs, "t", 9)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SetStore(SetUnion, []byte("u"), bs("s", "t")); return err })
	wantElemBytes(t, cs, "u", 9)
	cs.run(t, 0, func(tx *Tx) error { _, _, err := tx.SPop([]byte("t"), 2); return err })
	cs.run(t, 0, func(tx *Tx) error { _, _, err := tx.SPop([]byte("t"), 1); return err })
	gone(t, cs, "t")
}

func TestElemBytesZSet(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.ZAdd([]byte("z"), ZAddOptions{}, []float64{1, 2, 3}, bs("aaa", "bb", "c"))
		return err
	})
	wantElemBytes(t, cs, "z", 6+3*zsetScoreBytes)
	cs.run(t, 0, func(tx *Tx) error { // a new score changes nothing
		_, err := tx.ZAdd([]byte("z"), ZAddOptions{Incr: true}, []float64{5}, bs("c"))
		return err
	})
	wantElemBytes(t, cs, "z", 6+3*zsetScoreBytes)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.ZRem([]byte("z"), bs("bb", "x")); return err })
	wantElemBytes(t, cs, "z", 4+2*zsetScoreBytes)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.ZRangeStore([]byte("r"), []byte("z"), ZRangeSpec{Kind: ZByRank, Start: 0, Stop: 0})
		return err
	})
	wantElemBytes(t, cs, "r", 3+zsetScoreBytes)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.ZPop([]byte("z"), false, 1); return err })
	wantElemBytes(t, cs, "z", 1+zsetScoreBytes)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.ZRemRange([]byte("z"), ZRangeSpec{Kind: ZByRank, Start: 0, Stop: -1})
		return err
	})
	gone(t, cs, "z")
}

func TestElemBytesCopyRenameRestore(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.HSet([]byte("h"), bs("f", "value")); return err })
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.Copy([]byte("h"), []byte("h2"), 0, false); return err })
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.Rename([]byte("h"), []byte("h3"), false); return err })
	wantElemBytes(t, cs, "h2", 6)
	wantElemBytes(t, cs, "h3", 6)
	for _, v := range []Value{
		{Type: TypeList, Items: bs("ab", "c")},
		{Type: TypeSet, Items: bs("ab", "c")},
		{Type: TypeHash, Pairs: []HashPair{{Field: []byte("ab"), Value: []byte("c")}}},
		{Type: TypeZSet, Members: []ZMember{{Member: []byte("ab")}, {Member: []byte("c")}}},
	} {
		key := "restored-" + v.Type.String()
		cs.run(t, 0, func(tx *Tx) error { _, err := tx.Restore([]byte(key), v, 0); return err })
		want := int64(3)
		if v.Type == TypeZSet {
			want += 2 * zsetScoreBytes
		}
		wantElemBytes(t, cs, key, want)
	}
}

// writeLegacy rewrites key's record as the format before element bytes
// wrote it: no flag, no figure.
func writeLegacy(t *testing.T, cs *checkStore, key string) {
	t.Helper()
	pdb, m, _ := cs.record(t, key)
	m.ElemBytes = -1
	rec := m.encode(nil)
	if rec[0]&metaElemBytesFlag != 0 {
		t.Fatal("a record with unknown element bytes was flagged")
	}
	cs.write(t, func(b *storage.Batch) error { return b.Set(metaKey(nil, pdb, []byte(key)), rec) })
}

// Ensure that a record of the format before element bytes decodes with the
// figure unknown, that the next write recounts it, and that reopening the
// store writes it back for every collection.
func TestElemBytesOfOldRecords(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SAdd([]byte("s"), bs("aaa", "bb")); return err })
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.Push([]byte("l"), ListRight, false, bs("aaa", "bb")); return err })
	writeLegacy(t, cs, "s")
	writeLegacy(t, cs, "l")
	cs.cache.clear()
	if _, m, _ := cs.record(t, "s"); m.ElemBytes != -1 {
		t.Fatalf("legacy record decodes with element bytes %d, want -1 (unknown)", m.ElemBytes)
	}
	cs.run(t, 0, func(tx *Tx) error { _, err := tx.SAdd([]byte("s"), bs("c")); return err })
	wantElemBytes(t, cs, "s", 6)
	cs.forgetStoredCounters(t) // a store of that format had none
	s2, err := Open(t.Context(), Options{Store: cs.st, Now: func() time.Time { return time.UnixMilli(cs.now) }})
	if err != nil {
		t.Fatal(err)
	}
	cs.Store = s2
	wantElemBytes(t, cs, "l", 5)
	if err := cs.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// Ensure that random writes of every collection type, with elements of
// random sizes, field expiry and the clock moving, keep every record's
// element bytes equal to a recount of its elements (and Check agreeing).
func TestElemBytesAfterRandomWrites(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cs := openCheckStore(t)
		defer cs.st.Close()
		keys := []string{"a", "b", "c"}
		key := rapid.SampledFrom(keys)
		elem := rapid.StringMatching(`[a-d]{0,3}|x{20,40}`)
		elems := rapid.SliceOfN(elem, 1, 4)
		ops := []func(tx *Tx) error{
			func(tx *Tx) error {
				pairs := elems.Draw(rt, "pairs")
				if len(pairs)%2 == 1 {
					pairs = append(pairs, elem.Draw(rt, "value"))
				}
				_, err := tx.HSet([]byte(key.Draw(rt, "key")), bs(pairs...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.HDel([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "fields")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.HExpire([]byte(key.Draw(rt, "key")), cs.now+rapid.Int64Range(1, 50).Draw(rt, "ttl"), HExpireAlways, bs(elems.Draw(rt, "fields")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.HIncrBy([]byte(key.Draw(rt, "key")), []byte(elem.Draw(rt, "f")), 7)
				return errNotInt(err)
			},
			func(tx *Tx) error {
				_, err := tx.Push([]byte(key.Draw(rt, "key")), ListEnd(rapid.IntRange(0, 1).Draw(rt, "end")), false, bs(elems.Draw(rt, "v")...))
				return err
			},
			func(tx *Tx) error {
				_, _, err := tx.Pop([]byte(key.Draw(rt, "key")), ListEnd(rapid.IntRange(0, 1).Draw(rt, "end")), rapid.Int64Range(1, 3).Draw(rt, "n"))
				return err
			},
			func(tx *Tx) error {
				err := tx.LSet([]byte(key.Draw(rt, "key")), rapid.Int64Range(-2, 2).Draw(rt, "i"), []byte(elem.Draw(rt, "v")))
				if errors.Is(err, ErrNoSuchKey) || errors.Is(err, ErrIndexOutOfRange) {
					return nil
				}
				return err
			},
			func(tx *Tx) error {
				return tx.LTrim([]byte(key.Draw(rt, "key")), rapid.Int64Range(-3, 3).Draw(rt, "start"), rapid.Int64Range(-3, 3).Draw(rt, "stop"))
			},
			func(tx *Tx) error {
				_, err := tx.LRem([]byte(key.Draw(rt, "key")), rapid.Int64Range(-2, 2).Draw(rt, "n"), []byte(elem.Draw(rt, "v")))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.LInsert([]byte(key.Draw(rt, "key")), rapid.Bool().Draw(rt, "before"), []byte(elem.Draw(rt, "pivot")), []byte(elem.Draw(rt, "v")))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.SAdd([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "m")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.SRem([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "m")...))
				return err
			},
			func(tx *Tx) error { _, _, err := tx.SPop([]byte(key.Draw(rt, "key")), 1); return err },
			func(tx *Tx) error {
				_, err := tx.SetStore(SetOp(rapid.IntRange(0, 2).Draw(rt, "op")), []byte(key.Draw(rt, "dst")), bs(keys...))
				return err
			},
			func(tx *Tx) error {
				m := elems.Draw(rt, "m")
				scores := make([]float64, len(m))
				for i := range scores {
					scores[i] = float64(rapid.IntRange(-2, 2).Draw(rt, "score"))
				}
				_, err := tx.ZAdd([]byte(key.Draw(rt, "key")), ZAddOptions{}, scores, bs(m...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.ZRem([]byte(key.Draw(rt, "key")), bs(elems.Draw(rt, "m")...))
				return err
			},
			func(tx *Tx) error {
				_, err := tx.ZPop([]byte(key.Draw(rt, "key")), rapid.Bool().Draw(rt, "max"), 2)
				return err
			},
			func(tx *Tx) error {
				_, err := tx.ZRangeStore([]byte(key.Draw(rt, "dst")), []byte(key.Draw(rt, "src")), ZRangeSpec{Kind: ZByRank, Start: 0, Stop: 1})
				return err
			},
			func(tx *Tx) error {
				_, err := tx.Copy([]byte(key.Draw(rt, "src")), []byte(key.Draw(rt, "dst")), 0, true)
				if errors.Is(err, ErrSameObject) {
					return nil
				}
				return err
			},
		}
		for step := range 30 {
			if rapid.IntRange(0, 5).Draw(rt, "advance") == 0 {
				cs.now += rapid.Int64Range(1, 60).Draw(rt, "ms")
				for _, src := range cs.FieldSources() {
					if _, err := expiry.Drain(t.Context(), src, time.UnixMilli(cs.now), 0, 2); err != nil {
						rt.Fatal(err)
					}
				}
			}
			op := rapid.IntRange(0, len(ops)-1).Draw(rt, "op")
			tx := cs.Begin()
			if err := ops[op](tx); err != nil && !errors.Is(err, ErrWrongType) {
				tx.Rollback()
				rt.Fatalf("step %d: op %d: %v", step, op, err)
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			for _, k := range keys {
				pdb, m, ok := cs.record(t, k)
				if !ok || m.Type == TypeString {
					continue
				}
				tx := cs.Begin()
				got, err := tx.recountElemBytes(pdb, m)
				tx.Rollback()
				if err != nil {
					rt.Fatal(err)
				}
				if got != m.ElemBytes {
					rt.Fatalf("step %d: %s %q keeps %d element bytes; a recount finds %d", step, m.Type, k, m.ElemBytes, got)
				}
			}
			if err := cs.Check(t.Context()); err != nil {
				rt.Fatalf("step %d: %v", step, err)
			}
		}
	})
}

// errNotInt ignores HINCRBY's error on a value that is not an integer.
func errNotInt(err error) error {
	if errors.Is(err, ErrNotInteger) || errors.Is(err, ErrHashNotInteger) {
		return nil
	}
	return err
}
