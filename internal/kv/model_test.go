package kv_test

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// modelKey is the model's view of a key.
type modelKey struct {
	val string
	exp int64 // 0 = none
}

// model is a plain map with Redis's rules, against which the store is
// checked: a key is gone once now > exp.
type model struct {
	now  int64
	keys map[string]modelKey
}

func (m *model) get(k string) (modelKey, bool) {
	v, ok := m.keys[k]
	if ok && v.exp != 0 && m.now > v.exp {
		delete(m.keys, k)
		return modelKey{}, false
	}
	return v, ok
}

func (m *model) size() int64 {
	n := int64(0)
	for k := range m.keys {
		if _, ok := m.get(k); ok {
			n++
		}
	}
	return n
}

// TestModelStringsAndExpiry runs random string and expiry commands against
// the store and the model with one fake clock, sweeping now and then.
func TestModelStringsAndExpiry(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, _, c, _, _ := newStore(t)
		m := &model{now: c.Now().UnixMilli(), keys: map[string]modelKey{}}
		keyGen := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		run := func(f func(tx *kv.Tx) error) {
			tx := s.Begin()
			if err := f(tx); err != nil {
				tx.Rollback()
				rt.Fatalf("unexpected error %v", err)
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"set": func(rt *rapid.T) {
				k, v := keyGen.Draw(rt, "k"), rapid.StringMatching(`[0-9]{1,3}`).Draw(rt, "v")
				cond := kv.SetCond(rapid.IntRange(0, 2).Draw(rt, "cond"))
				keep := rapid.Bool().Draw(rt, "keepttl")
				var at int64
				if !keep && rapid.Bool().Draw(rt, "ttl") {
					at = m.now + rapid.Int64Range(-50, 200).Draw(rt, "ms")
				}
				var done bool
				run(func(tx *kv.Tx) error {
					r, err := tx.Set([]byte(k), []byte(v), kv.SetOptions{Cond: cond, ExpireAt: at, KeepTTL: keep})
					done = r.Done
					return err
				})
				old, exists := m.get(k)
				want := !(cond == kv.SetNX && exists) && !(cond == kv.SetXX && !exists)
				if done != want {
					rt.Fatalf("set %s done=%v, model %v", k, done, want)
				}
				if want {
					nk := modelKey{val: v, exp: at}
					if keep && exists {
						nk.exp = old.exp
					}
					m.keys[k] = nk
				}
			},
			"get": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				var got []byte
				var ok bool
				run(func(tx *kv.Tx) (err error) { got, ok, err = tx.Get([]byte(k)); return })
				want, wok := m.get(k)
				if ok != wok || (ok && string(got) != want.val) {
					rt.Fatalf("get %s = %q,%v; model %q,%v", k, got, ok, want.val, wok)
				}
			},
			"del": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				var n int64
				run(func(tx *kv.Tx) (err error) { n, err = tx.Del([][]byte{[]byte(k)}); return })
				_, ok := m.get(k)
				if (n == 1) != ok {
					rt.Fatalf("del %s = %d, model %v", k, n, ok)
				}
				delete(m.keys, k)
			},
			"expire": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				at := m.now + rapid.Int64Range(-20, 300).Draw(rt, "ms")
				cond := rapid.SampledFrom([]kv.ExpireCond{kv.ExpireAlways, kv.ExpireNX, kv.ExpireXX, kv.ExpireGT, kv.ExpireLT, kv.ExpireXX | kv.ExpireLT}).Draw(rt, "cond")
				var done bool
				run(func(tx *kv.Tx) (err error) { done, err = tx.Expire([]byte(k), at, cond); return })
				cur, ok := m.get(k)
				want := ok
				if ok {
					inf := cur.exp == 0
					if (cond&kv.ExpireNX != 0 && !inf) || (cond&kv.ExpireXX != 0 && inf) ||
						(cond&kv.ExpireGT != 0 && (inf || at <= cur.exp)) || (cond&kv.ExpireLT != 0 && !inf && at >= cur.exp) {
						want = false
					}
				}
				if done != want {
					rt.Fatalf("expire %s at %d cond %d = %v, model %v (cur %+v)", k, at-m.now, cond, done, want, cur)
				}
				if want {
					if at <= m.now {
						delete(m.keys, k)
					} else {
						cur.exp = at
						m.keys[k] = cur
					}
				}
			},
			"persist": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				var done bool
				run(func(tx *kv.Tx) (err error) { done, err = tx.Persist([]byte(k)); return })
				cur, ok := m.get(k)
				if done != (ok && cur.exp != 0) {
					rt.Fatalf("persist %s = %v, model %+v %v", k, done, cur, ok)
				}
				if done {
					cur.exp = 0
					m.keys[k] = cur
				}
			},
			"ttl": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				var at int64
				var st kv.TTLState
				run(func(tx *kv.Tx) (err error) { at, st, err = tx.ExpireAt([]byte(k)); return })
				cur, ok := m.get(k)
				switch {
				case !ok && st != kv.TTLMissing, ok && cur.exp == 0 && st != kv.TTLPersistent,
					ok && cur.exp != 0 && (st != kv.TTLVolatile || at != cur.exp):
					rt.Fatalf("ttl %s = %d %d, model %+v %v", k, at, st, cur, ok)
				}
			},
			"incr": func(rt *rapid.T) {
				k := keyGen.Draw(rt, "k")
				d := rapid.Int64Range(-5, 5).Draw(rt, "d")
				var n int64
				tx := s.Begin()
				n, err := tx.IncrBy([]byte(k), d)
				if cerr := tx.Commit(); cerr != nil {
					rt.Fatal(cerr)
				}
				cur, ok := m.get(k)
				base := int64(0)
				if ok {
					v, perr := strconv.ParseInt(cur.val, 10, 64)
					if perr != nil || (len(cur.val) > 1 && cur.val[0] == '0') {
						if err != kv.ErrNotInteger {
							rt.Fatalf("incr %s on %q: %v", k, cur.val, err)
						}
						return
					}
					base = v
				}
				if err != nil || n != base+d {
					rt.Fatalf("incr %s = %d %v, model %d", k, n, err, base+d)
				}
				cur.val = strconv.FormatInt(n, 10)
				m.keys[k] = cur // the TTL is kept
			},
			"rename": func(rt *rapid.T) {
				src, dst := keyGen.Draw(rt, "src"), keyGen.Draw(rt, "dst")
				tx := s.Begin()
				_, err := tx.Rename([]byte(src), []byte(dst), false)
				if cerr := tx.Commit(); cerr != nil {
					rt.Fatal(cerr)
				}
				cur, ok := m.get(src)
				if !ok {
					if err != kv.ErrNoSuchKey {
						rt.Fatalf("rename missing %s: %v", src, err)
					}
					return
				}
				if err != nil {
					rt.Fatal(err)
				}
				delete(m.keys, src)
				m.keys[dst] = cur
			},
			"advance": func(rt *rapid.T) {
				d := rapid.Int64Range(0, 150).Draw(rt, "ms")
				c.Advance(time.Duration(d) * time.Millisecond)
				m.now += d
			},
			"reap": func(rt *rapid.T) {
				for _, src := range s.Sources()[:1] {
					if _, err := expiry.Drain(t.Context(), src, c.Now(), 0, 2); err != nil {
						rt.Fatal(err)
					}
				}
			},
			"": func(rt *rapid.T) {
				var n int64
				run(func(tx *kv.Tx) (err error) { n, err = tx.DBSize(); return })
				if want := m.size(); n != want {
					rt.Fatalf("dbsize %d, model %d", n, want)
				}
				var keys [][]byte
				run(func(tx *kv.Tx) (err error) { keys, err = tx.Keys([]byte("*")); return })
				if int64(len(keys)) != m.size() {
					rt.Fatalf("keys %q, model %d", keys, m.size())
				}
			},
		})
	})
}
