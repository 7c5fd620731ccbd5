package kv

import (
	"hash/maphash"
	"math/rand/v2"
)

// The access clock: when each key was last read or written, for OBJECT
// IDLETIME, and its LFU counter, for OBJECT FREQ. Like Redis's 24 bits of
// LRU or LFU data per object, it lives in memory only (lost on restart, when
// every key counts as accessed at start) and is updated on the hot path
// without a storage write: Lookup and LookupRead record the access of the
// key they look up, at one-second resolution. The commands Redis runs with
// LOOKUP_NOTOUCH (EXISTS, TYPE, OBJECT) use lookups that do not record.
//
// Memory is bounded by two generations of at most accessGeneration entries
// of 16 bytes (a 64-bit hash of db and key, and the record): accesses go to
// the current generation; when it is full the older one is dropped and the
// current one becomes the older. A key found in neither was last accessed
// at or before floor, the time the dropped generation's successor started
// (or the start, before any drop), so its idle time is reported from floor:
// a lower bound, exact for every key accessed within the last generation.
// The clock is used under the store's lock only.
type accessClock struct {
	seed     maphash.Seed
	cur, old map[uint64]accessRecord
	since    int64 // Unix seconds at which cur became current
	floor    int64 // Unix seconds: a key in neither map was last accessed at or before it
	started  bool
	max      int // entries per generation; 0 means accessGeneration
}

// accessGeneration is the default number of keys of one generation.
const accessGeneration = 1 << 18

// accessRecord packs the last access in Unix seconds (upper bits) and the
// LFU counter (low 8 bits).
type accessRecord uint64

func newAccessRecord(sec int64, counter uint8) accessRecord {
	return accessRecord(uint64(sec)<<8 | uint64(counter))
}

func (r accessRecord) sec() int64     { return int64(r >> 8) }
func (r accessRecord) counter() uint8 { return uint8(r) }

// Redis's LFU parameters at their defaults (lfu-log-factor 10,
// lfu-decay-time 1 minute) and the counter of a new key (LFU_INIT_VAL).
const (
	lfuLogFactor = 10
	lfuDecayMin  = 1
	lfuInitVal   = 5
)

func (c *accessClock) start(sec int64) {
	if c.started {
		return
	}
	c.started = true
	c.seed = maphash.MakeSeed()
	c.cur = make(map[uint64]accessRecord)
	c.since, c.floor = sec, sec
}

// hash names key of physical db pdb: a seeded hash of the key, with the
// db mixed in (two names collide with probability 2^-64; they would share
// one record).
func (c *accessClock) hash(pdb byte, key []byte) uint64 {
	return maphash.Bytes(c.seed, key) ^ (uint64(pdb)+1)*0x9e3779b97f4a7c15
}

// get returns the record of a key hash, or one for a key last accessed at
// floor with the counter of a new key when the clock does not know it.
func (c *accessClock) get(h uint64) accessRecord {
	if r, ok := c.cur[h]; ok {
		return r
	}
	if r, ok := c.old[h]; ok {
		return r
	}
	return newAccessRecord(c.floor, lfuInitVal)
}

// touch records an access to key of physical db pdb at now (Unix ms).
// found says the key exists: its LFU counter decays and is incremented as
// Redis's updateLFU does; a key not found (a write path about to create
// it) starts at LFU_INIT_VAL, as a new object does.
func (c *accessClock) touch(pdb byte, key []byte, now int64, found bool) {
	sec := now / 1000
	c.start(sec)
	h := c.hash(pdb, key)
	r, inCur := c.cur[h]
	if !inCur {
		var inOld bool
		if r, inOld = c.old[h]; !inOld {
			r = newAccessRecord(c.floor, lfuInitVal)
		}
		if len(c.cur) >= c.generation() {
			c.floor = c.since
			c.old, c.cur = c.cur, make(map[uint64]accessRecord, len(c.cur))
			c.since = sec
		}
	}
	counter := uint8(lfuInitVal)
	if found {
		counter = lfuIncr(lfuDecay(r, sec))
	}
	c.cur[h] = newAccessRecord(sec, counter)
}

func (c *accessClock) generation() int {
	if c.max > 0 {
		return c.max
	}
	return accessGeneration
}

// idle returns the seconds since key of physical db pdb was last accessed,
// at now (Unix ms), as Redis's OBJECT IDLETIME counts them: the difference
// of the two times in whole seconds.
func (c *accessClock) idle(pdb byte, key []byte, now int64) int64 {
	sec := now / 1000
	c.start(sec)
	return max(sec-c.get(c.hash(pdb, key)).sec(), 0)
}

// freq returns the LFU counter of key, decayed to now (Unix ms), as OBJECT
// FREQ reports it.
func (c *accessClock) freq(pdb byte, key []byte, now int64) uint8 {
	sec := now / 1000
	c.start(sec)
	return lfuDecay(c.get(c.hash(pdb, key)), sec)
}

// lfuDecay is Redis's LFUDecrAndReturn: the counter loses one per
// lfu-decay-time minutes since the last access.
func lfuDecay(r accessRecord, sec int64) uint8 {
	periods := (sec/60 - r.sec()/60) / lfuDecayMin
	c := int64(r.counter())
	if periods <= 0 {
		return uint8(c)
	}
	return uint8(max(c-periods, 0))
}

// lfuIncr is Redis's LFULogIncr: the counter grows logarithmically, by one
// with probability 1/((counter-LFU_INIT_VAL)*lfu-log-factor+1).
func lfuIncr(c uint8) uint8 {
	if c == 255 {
		return c
	}
	base := max(float64(c)-lfuInitVal, 0)
	if rand.Float64() < 1/(base*lfuLogFactor+1) {
		c++
	}
	return c
}

// KeyAccess is what OBJECT IDLETIME and OBJECT FREQ report of a key.
type KeyAccess struct {
	// IdleSeconds is the time since the key was last read or written, in
	// whole seconds.
	IdleSeconds int64
	// Freq is the key's logarithmic access counter (Redis's LFU counter,
	// with lfu-log-factor 10 and lfu-decay-time 1).
	Freq int64
}

// Access returns how recently and how often key was accessed, without
// counting this as an access (Redis's LOOKUP_NOTOUCH); ok is false when
// the key is missing.
func (tx *Tx) Access(key []byte) (KeyAccess, bool, error) {
	_, ok, err := tx.lookup(key)
	if err != nil || !ok {
		return KeyAccess{}, false, err
	}
	return KeyAccess{
		IdleSeconds: tx.s.access.idle(tx.pdb, key, tx.now),
		Freq:        int64(tx.s.access.freq(tx.pdb, key, tx.now)),
	}, true, nil
}

// Touch counts the keys that exist (a key named twice counts twice) and
// records an access to each, as TOUCH does.
func (tx *Tx) Touch(keys [][]byte) (int64, error) {
	var n int64
	for _, k := range keys {
		_, ok, err := tx.LookupRead(k)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}
