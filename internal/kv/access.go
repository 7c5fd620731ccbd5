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
// Memory is fixed: a table of accessSets sets of accessWays 8-byte records
// (512 KiB, allocated at the first access), a set being one cache line, so
// that an access costs one hash and one cache line, with no growth and no
// allocation. A seeded 64-bit hash of db and key picks the set, and 24 more
// bits of it tag the key's record there. A key without a record in its
// full set replaces the least recently accessed one, so a key missing from
// a full set was last accessed at or before the oldest time in the set
// (every record there was written after its own), and its idle time is
// reported from that time: a lower bound. In a set that was never full, a
// missing key was never accessed since the start. While the keys in use
// are fewer than the records, nearly every key keeps its own exact record.
// The clock is used under the store's lock only.
type accessClock struct {
	seed  maphash.Seed
	slots []accessRecord // accessSets*accessWays records, set by set
	start int64          // Unix seconds of the first access: when every key counts as accessed
}

// The table's shape: 8 records of 8 bytes make a 64-byte cache line.
const (
	accessWays = 8
	accessSets = 1 << 13
)

// accessRecord packs a key's hash tag (upper 24 bits), its last access in
// Unix seconds (32 bits) and its LFU counter (low 8 bits); zero is an empty
// slot.
type accessRecord uint64

func newAccessRecord(tag uint64, sec int64, counter uint8) accessRecord {
	return accessRecord(tag<<40 | uint64(uint32(sec))<<8 | uint64(counter))
}

func (r accessRecord) tag() uint64    { return uint64(r) >> 40 }
func (r accessRecord) sec() int64     { return int64(uint32(r >> 8)) }
func (r accessRecord) counter() uint8 { return uint8(r) }

// lfuInitVal is the LFU counter of a new key (Redis's LFU_INIT_VAL).
const lfuInitVal = 5

// lfuParams are Redis's lfu-log-factor and lfu-decay-time (minutes; 0
// means the counter never decays).
type lfuParams struct {
	logFactor int64
	decayMin  int64
}

func (c *accessClock) init(sec int64) {
	if c.slots != nil {
		return
	}
	c.seed = maphash.MakeSeed()
	c.slots = make([]accessRecord, accessSets*accessWays)
	c.start = sec
}

// lookup finds the record of key of physical db pdb in its set. It returns
// the set, the key's tag and the index of its record (ok) or else of the
// record to replace (an empty one, or the least recently accessed), with
// the record the key is taken to have: its own, or the counter of a new
// key at the latest time it may have been accessed.
func (c *accessClock) lookup(pdb byte, key []byte) (set []accessRecord, tag uint64, i int, r accessRecord) {
	h := maphash.Bytes(c.seed, key) ^ (uint64(pdb)+1)*0x9e3779b97f4a7c15
	base := int(h&(accessSets-1)) * accessWays
	set = c.slots[base : base+accessWays : base+accessWays]
	tag = h >> 40
	i = -1
	for j, rj := range set {
		switch {
		case rj == 0:
			if i < 0 || set[i] != 0 {
				i = j
			}
		case rj.tag() == tag:
			return set, tag, j, rj
		case i < 0 || (set[i] != 0 && rj.sec() < set[i].sec()):
			i = j
		}
	}
	bound := c.start
	if set[i] != 0 {
		bound = set[i].sec()
	}
	return set, tag, i, newAccessRecord(tag, bound, lfuInitVal)
}

// touch records an access to key of physical db pdb at now (Unix ms).
// found says the key exists: its LFU counter decays and is incremented as
// Redis's updateLFU does; a key not found (a write path about to create
// it) starts at LFU_INIT_VAL, as a new object does.
func (c *accessClock) touch(pdb byte, key []byte, now int64, found bool, p lfuParams) {
	sec := now / 1000
	c.init(sec)
	set, tag, i, r := c.lookup(pdb, key)
	counter := uint8(lfuInitVal)
	if found {
		counter = lfuIncr(lfuDecay(r, sec, p), p)
	}
	set[i] = newAccessRecord(tag, sec, counter)
}

// idle returns the seconds since key of physical db pdb was last accessed,
// at now (Unix ms), as Redis's OBJECT IDLETIME counts them: the difference
// of the two times in whole seconds.
func (c *accessClock) idle(pdb byte, key []byte, now int64) int64 {
	sec := now / 1000
	c.init(sec)
	_, _, _, r := c.lookup(pdb, key)
	return max(sec-r.sec(), 0)
}

// freq returns the LFU counter of key, decayed to now (Unix ms), as OBJECT
// FREQ reports it.
func (c *accessClock) freq(pdb byte, key []byte, now int64, p lfuParams) uint8 {
	sec := now / 1000
	c.init(sec)
	_, _, _, r := c.lookup(pdb, key)
	return lfuDecay(r, sec, p)
}

// lfuDecay is Redis's LFUDecrAndReturn: the counter loses one per
// lfu-decay-time minutes since the last access (never with 0).
func lfuDecay(r accessRecord, sec int64, p lfuParams) uint8 {
	c := int64(r.counter())
	if p.decayMin <= 0 {
		return uint8(c)
	}
	periods := (sec/60 - r.sec()/60) / p.decayMin
	if periods <= 0 {
		return uint8(c)
	}
	return uint8(max(c-periods, 0))
}

// lfuIncr is Redis's LFULogIncr: the counter grows logarithmically, by one
// with probability 1/((counter-LFU_INIT_VAL)*lfu-log-factor+1).
func lfuIncr(c uint8, p lfuParams) uint8 {
	if c == 255 {
		return c
	}
	base := max(float64(c)-lfuInitVal, 0)
	if rand.Float64() < 1/(base*float64(p.logFactor)+1) {
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
	// under lfu-log-factor and lfu-decay-time).
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
		Freq:        int64(tx.s.access.freq(tx.pdb, key, tx.now, tx.s.lfu())),
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
