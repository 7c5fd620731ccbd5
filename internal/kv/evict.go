package kv

import (
	"bytes"
	"context"
	"math"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// Eviction bounds the counted memory of the keyspace, as Redis's maxmemory
// bounds its used memory, and deletes keys by a policy to stay under it.
//
// # What counts
//
// mayfly keeps its data on disk, so the bound is on the logical size of
// the keyspace, not on the process: every key counts keyCost, its name,
// its value and a fixed overhead. A string costs keyOverhead + the key's
// length + the value's length, which is what MEMORY USAGE reports for it.
// A collection costs keyOverhead + the key's length + its record's
// payload + the byte size of its elements its record keeps + elemOverhead
// per element (elembytes.go), which is what MEMORY USAGE reports for it
// too. The sum over all
// databases is kept exactly in the counters (updated in the batch of
// every PutMeta and DeleteMeta, stored for Open by counters_store.go); with
// StartupMemory added it is the used memory compared with MaxMemory, which
// INFO memory reports as used_memory.
//
// # When and how
//
// Before each command (MakeRoom), when the count is over MaxMemory, keys
// are deleted by the policy until it is under, at most evictBudget keys and
// for at most evictTimeLimit per command; what is left is done by a
// background pass (EvictPass, run by Store.Run, backgroundBatch keys per
// Tx). When no key can be evicted (noeviction, or a volatile policy and no
// key with an expiry) the command is refused with Redis's OOM error, if it
// is one that may grow memory. An evicted key is deleted like DEL deletes
// it, with an `evicted` event (class e) instead of `del`, and counts in
// evicted_keys.
//
// The random policies pick a random key of the next non-empty database in
// turn (the keyspace, or the keys with an expiry). The LRU and LFU ones
// sample Samples consecutive keys from a random point of every non-empty
// database into a pool of the best evictionPoolSize candidates kept across
// commands, scored by idle time or by 255 minus the LFU counter (access.go),
// and evict the best candidate still present. volatile-ttl needs no
// sampling: it evicts the key with the earliest expiry, the first entry of
// the time-ordered expiry index. The access data the scores come from is
// in memory only and starts afresh at every Open; the counted memory is
// read back from storage.
type Eviction struct {
	// MaxMemory is the bound in counted bytes; 0 means none.
	MaxMemory int64
	Policy    Policy
	// Samples is how many keys an LRU or LFU eviction samples per
	// database (maxmemory-samples).
	Samples int
	// Tenacity (0 to 100) scales how many keys one command may evict
	// (maxmemory-eviction-tenacity; evictBudget).
	Tenacity int
	// LFULogFactor and LFUDecayTime (minutes) shape the LFU counter.
	LFULogFactor int
	LFUDecayTime int
}

// Policy is a maxmemory-policy.
type Policy uint8

// The policies, as Redis names them.
const (
	PolicyNoEviction Policy = iota
	PolicyAllKeysLRU
	PolicyAllKeysLFU
	PolicyAllKeysRandom
	PolicyVolatileLRU
	PolicyVolatileLFU
	PolicyVolatileRandom
	PolicyVolatileTTL
)

var policyNames = [...]string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random",
	"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}

// String returns the policy's name.
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "noeviction"
}

// ParsePolicy parses a policy name in any case; ok is false for another.
func ParsePolicy(name string) (Policy, bool) {
	for i, n := range policyNames {
		if equalFold(name, n) {
			return Policy(i), true
		}
	}
	return PolicyNoEviction, false
}

func (p Policy) volatile() bool {
	return p == PolicyVolatileLRU || p == PolicyVolatileLFU || p == PolicyVolatileRandom || p == PolicyVolatileTTL
}
func (p Policy) lfu() bool    { return p == PolicyAllKeysLFU || p == PolicyVolatileLFU }
func (p Policy) random() bool { return p == PolicyAllKeysRandom || p == PolicyVolatileRandom }

// SetEviction installs the maxmemory configuration; it applies from the
// next command on (and starts a background pass when now over the bound).
func (s *Store) SetEviction(e Eviction) {
	e.Samples = max(e.Samples, 1)
	e.Tenacity = min(max(e.Tenacity, 0), 100)
	s.eviction.Store(&e)
	s.wakeEvictor()
}

// Eviction returns the maxmemory configuration.
func (s *Store) Eviction() Eviction { return *s.eviction.Load() }

// lfu returns the LFU counter's parameters.
func (s *Store) lfu() lfuParams {
	e := s.eviction.Load()
	return lfuParams{logFactor: int64(e.LFULogFactor), decayMin: int64(e.LFUDecayTime)}
}

// StartupMemory is the counted memory of an empty server, the part of
// used memory that is not the keyspace's: as in Redis, used memory is never
// zero, and a maxmemory below it refuses every write once nothing is left
// to evict.
const StartupMemory = 64 << 10

// UsedMemory returns the counted memory as of the last commit:
// StartupMemory plus DatasetMemory.
func (s *Store) UsedMemory() int64 { return StartupMemory + s.used.Load() }

// DatasetMemory returns the counted memory of the keys of all databases
// as of the last commit.
func (s *Store) DatasetMemory() int64 { return s.used.Load() }

// publishUsed sums the counted memory of the databases; s.mu is held (or
// the store is not shared yet).
func (s *Store) publishUsed() {
	var n int64
	for i := range s.c {
		n += s.c[i].bytes
	}
	s.used.Store(n)
}

// UsedMemory returns the counted memory as this Tx sees it, its own
// writes included: StartupMemory plus the keys of all databases.
func (tx *Tx) UsedMemory() int64 {
	n := int64(StartupMemory)
	for pdb := range NumDBs {
		n += tx.counters(byte(pdb)).bytes
	}
	return n
}

func (s *Store) wakeEvictor() {
	select {
	case s.evict <- struct{}{}:
	default:
	}
}

// Redis's maxmemory-eviction-tenacity scale: each step up to
// tenacityLinearSteps adds one unit of work, each step above it multiplies
// the work by tenacityGrowth, and tenacityUnbounded removes the bound.
const (
	tenacityLinearSteps = 10
	tenacityGrowth      = 1.15
	tenacityUnbounded   = 100
	evictKeysPerStep    = 16
	evictTimePerStep    = 50 * time.Microsecond
)

// tenacityScale is the units of eviction work tenacity allows (at least
// one), or a negative number for no bound.
func tenacityScale(tenacity int) float64 {
	switch {
	case tenacity <= tenacityLinearSteps:
		return float64(max(tenacity, 1))
	case tenacity < tenacityUnbounded:
		return tenacityLinearSteps * math.Pow(tenacityGrowth, float64(tenacity-tenacityLinearSteps))
	default:
		return -1
	}
}

// evictBudget is how many keys one command may evict: evictKeysPerStep
// per unit of tenacityScale, or -1 for no bound.
func evictBudget(tenacity int) int {
	u := tenacityScale(tenacity)
	if u < 0 {
		return -1
	}
	return int(evictKeysPerStep * u)
}

// evictTimeLimit is how long one command may evict, Redis's
// evictionTimeLimitUs: evictTimePerStep per unit of tenacityScale, or 0 for
// no limit. It is read on the store's clock every evictKeysPerStep keys, as
// Redis does.
func evictTimeLimit(tenacity int) time.Duration {
	u := tenacityScale(tenacity)
	if u < 0 {
		return 0
	}
	return time.Duration(u*float64(evictTimePerStep/time.Microsecond)) * time.Microsecond
}

// backgroundBatch is how many keys one Tx of the background pass evicts,
// so that it holds the store's lock briefly.
const backgroundBatch = 16

// MakeRoom evicts keys by the policy while the counted memory is over
// MaxMemory, at most evictBudget keys, leaving the rest to the background
// pass, and calls each (when not nil) with the name of every key it
// evicts. oom reports that it is over and no key could be evicted: a
// command that may grow memory is then refused.
func (tx *Tx) MakeRoom(each func(key []byte)) (oom bool, err error) {
	e := tx.s.eviction.Load()
	if e.MaxMemory <= 0 || tx.UsedMemory() <= e.MaxMemory {
		return false, nil
	}
	tx.onEvict = each
	defer func() { tx.onEvict = nil }()
	_, fail, over, err := tx.evict(e, evictBudget(e.Tenacity), evictTimeLimit(e.Tenacity))
	if err != nil {
		return false, err
	}
	if over && !fail {
		tx.s.wakeEvictor()
	}
	return fail, nil
}

// OverMemory reports whether the counted memory as this Tx sees it is over
// MaxMemory.
func (tx *Tx) OverMemory() bool {
	e := tx.s.eviction.Load()
	return e.MaxMemory > 0 && tx.UsedMemory() > e.MaxMemory
}

// EvictPass evicts in batches of backgroundBatch keys, each its own Tx, until
// the counted memory is under MaxMemory or nothing can be evicted, and
// returns how many keys it evicted.
func (s *Store) EvictPass(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		e := s.eviction.Load()
		tx := s.Begin()
		n, fail, over, err := tx.evict(e, backgroundBatch, 0)
		if err != nil {
			tx.Rollback()
			return total, err
		}
		if err := tx.Commit(); err != nil {
			return total, err
		}
		total += n
		if fail || !over || n == 0 {
			return total, nil
		}
	}
	return total, nil
}

// evict deletes up to budget keys (negative: no bound) by e's policy while
// the counted memory is over e.MaxMemory, for at most limit (0: no limit)
// on the store's clock. fail reports that it was over and no key could be
// found to evict; over that it still is.
func (tx *Tx) evict(e *Eviction, budget int, limit time.Duration) (n int, fail, over bool, err error) {
	var start time.Time
	if limit > 0 {
		start = tx.s.opts.Now()
	}
	for budget < 0 || n < budget {
		if limit > 0 && n > 0 && n%evictKeysPerStep == 0 && tx.s.opts.Now().Sub(start) > limit {
			break
		}
		if e.MaxMemory <= 0 || tx.UsedMemory() <= e.MaxMemory {
			return n, false, false, nil
		}
		if e.Policy == PolicyNoEviction {
			return n, true, true, nil
		}
		pdb, key, m, ok, err := tx.victim(e)
		if err != nil {
			return n, false, true, err
		}
		if !ok {
			return n, true, true, nil
		}
		if err := tx.evictKey(pdb, key, m); err != nil {
			return n, false, true, err
		}
		n++
	}
	return n, false, e.MaxMemory > 0 && tx.UsedMemory() > e.MaxMemory, nil
}

// evictKey deletes key of physical db pdb (record m) as evicted.
func (tx *Tx) evictKey(pdb byte, key []byte, m Meta) error {
	if err := tx.deleteMeta(pdb, key, m, false); err != nil {
		return err
	}
	tx.evicted++
	tx.notifyDB(tx.logical(pdb), ClassEvicted, "evicted", key)
	if tx.onEvict != nil {
		tx.onEvict(key)
	}
	return nil
}

// victim picks the key to evict next by e's policy; ok is false when
// there is none.
func (tx *Tx) victim(e *Eviction) (pdb byte, key []byte, m Meta, ok bool, err error) {
	switch {
	case e.Policy == PolicyVolatileTTL:
		return tx.soonestExpiry()
	case e.Policy.random():
		return tx.randomVictim(e.Policy.volatile())
	default:
		return tx.poolVictim(e)
	}
}

// populated reports whether physical db pdb has keys the policy may
// evict.
func (tx *Tx) populated(pdb byte, volatile bool) bool {
	c := tx.counters(pdb)
	if volatile {
		return c.expires > 0
	}
	return c.keys > 0
}

// soonestExpiry returns the key with the earliest expiry of all databases:
// the first entry of each database's expiry index, searched from
// Store.dueFrom.
func (tx *Tx) soonestExpiry() (pdb byte, key []byte, m Meta, ok bool, err error) {
	best := int64(math.MaxInt64)
	for p := range NumDBs {
		if !tx.populated(byte(p), true) {
			continue
		}
		lo := expiryPrefix(byte(p))
		start := lo
		if from := tx.s.dueFrom[p]; from != nil && bytes.Compare(from, lo) > 0 {
			start = from // nothing is stored below it
		}
		it, err := tx.reader().NewIter(start, storage.PrefixEnd(lo))
		if err != nil {
			return 0, nil, Meta{}, false, err
		}
		if it.First() {
			// The first entry, the Tx's own writes included: nothing is
			// below it even if the Tx rolls back, so the next search
			// starts there instead of stepping over the deletions of
			// every key evicted before.
			tx.s.dueFrom[p] = bytes.Clone(it.Key())
			if at, k, valid := decodeExpiryKey(it.Key()); valid && at < best {
				best, pdb, key = at, byte(p), append([]byte(nil), k...)
			}
		}
		if err := it.Close(); err != nil {
			return 0, nil, Meta{}, false, err
		}
	}
	if key == nil {
		return 0, nil, Meta{}, false, nil
	}
	m, ok, err = tx.getMeta(pdb, key)
	return pdb, key, m, ok, err
}

// randomVictim returns a random key of the next database in turn that has
// one (a key with an expiry with volatile).
func (tx *Tx) randomVictim(volatile bool) (pdb byte, key []byte, m Meta, ok bool, err error) {
	for range NumDBs {
		tx.s.pool.nextDB = (tx.s.pool.nextDB + 1) % NumDBs
		p := tx.dbmap[tx.s.pool.nextDB]
		if !tx.populated(p, volatile) {
			continue
		}
		keys, err := tx.sampleKeys(p, volatile, 1, nil)
		if err != nil {
			return 0, nil, Meta{}, false, err
		}
		if len(keys) == 0 {
			continue
		}
		m, ok, err := tx.getMeta(p, keys[0])
		if err != nil {
			return 0, nil, Meta{}, false, err
		}
		if ok {
			return p, keys[0], m, true, nil
		}
	}
	return 0, nil, Meta{}, false, nil
}

// sampleKeys appends to dst up to n consecutive keys of physical db pdb
// from a random point (wrapping around at the end), of the keyspace or,
// with volatile, of the expiry index.
//
// The point is RANDOMKEY's (seekRandom: a descent byte by byte, a few seeks
// per byte that tells keys apart), so that keys spread over a narrow part
// of the byte space, such as numbered ones, come up about equally often.
func (tx *Tx) sampleKeys(pdb byte, volatile bool, n int, dst [][]byte) ([][]byte, error) {
	lo := metaPrefix(pdb)
	if volatile {
		lo = expiryPrefix(pdb)
	}
	start := lo
	if from := tx.s.dueFrom[pdb]; volatile && from != nil && bytes.Compare(from, lo) > 0 {
		start = from // nothing is stored below it
	}
	it, err := tx.reader().NewIter(start, storage.PrefixEnd(lo))
	if err != nil {
		return dst, err
	}
	ok := seekRandom(it, lo)
	var first []byte
	for i := 0; ok && i < n; i++ {
		k := it.Key()
		if first == nil {
			first = append([]byte(nil), k...)
		} else if string(k) == string(first) {
			break // wrapped around a database of fewer than n keys
		}
		if volatile {
			_, key, valid := decodeExpiryKey(k)
			if valid {
				dst = append(dst, append([]byte(nil), key...))
			}
		} else {
			dst = append(dst, append([]byte(nil), k[len(lo):]...))
		}
		if ok = it.Next(); !ok {
			ok = it.First()
		}
	}
	return dst, it.Close()
}

// evictionPoolSize is how many candidates the LRU and LFU policies keep.
const evictionPoolSize = 16

// evictionPool holds the best eviction candidates seen so far, ordered by
// score, the best last, and the database the random policies pick from
// next. It is used under the store's lock.
type evictionPool struct {
	entries []poolEntry
	nextDB  int
	sample  [][]byte
}

// poolEntry is one candidate: a key of a physical database, with its
// score (idle seconds, or 255 minus its LFU counter: higher goes first).
type poolEntry struct {
	pdb   byte
	key   string
	score int64
}

// insert adds a candidate, keeping the pool sorted and at most
// evictionPoolSize long: a candidate worse than all of a full pool is
// dropped, and one already there gets its new score.
func (p *evictionPool) insert(e poolEntry) {
	for i := range p.entries {
		if p.entries[i].pdb == e.pdb && p.entries[i].key == e.key {
			p.entries = append(p.entries[:i], p.entries[i+1:]...)
			break
		}
	}
	i := 0
	for i < len(p.entries) && p.entries[i].score < e.score {
		i++
	}
	if len(p.entries) == evictionPoolSize {
		if i == 0 {
			return
		}
		p.entries = p.entries[1:] // the worst goes
		i--
	}
	p.entries = append(p.entries, poolEntry{})
	copy(p.entries[i+1:], p.entries[i:])
	p.entries[i] = e
}

// poolVictim samples every database into the pool and returns the best
// candidate still present (with an expiry, for a volatile policy).
func (tx *Tx) poolVictim(e *Eviction) (pdb byte, key []byte, m Meta, ok bool, err error) {
	pool := &tx.s.pool
	volatile := e.Policy.volatile()
	lfu := tx.s.lfu()
	for p := range NumDBs {
		if !tx.populated(byte(p), volatile) {
			continue
		}
		pool.sample, err = tx.sampleKeys(byte(p), volatile, e.Samples, pool.sample[:0])
		if err != nil {
			return 0, nil, Meta{}, false, err
		}
		for _, k := range pool.sample {
			var score int64
			if e.Policy.lfu() {
				score = 255 - int64(tx.s.access.freq(byte(p), k, tx.now, lfu))
			} else {
				score = tx.s.access.idle(byte(p), k, tx.now)
			}
			pool.insert(poolEntry{pdb: byte(p), key: string(k), score: score})
		}
	}
	for len(pool.entries) > 0 {
		c := pool.entries[len(pool.entries)-1]
		pool.entries = pool.entries[:len(pool.entries)-1]
		k := []byte(c.key)
		m, ok, err := tx.getMeta(c.pdb, k)
		if err != nil {
			return 0, nil, Meta{}, false, err
		}
		if ok && (!volatile || m.ExpireAt != 0) {
			return c.pdb, k, m, true, nil
		}
	}
	return 0, nil, Meta{}, false, nil
}
