package kv

// metaCache keeps the metadata records of recently used keys in memory, so
// that a command on a hot key does not seek Pebble's memtable and sstables
// for them: every command reads its key's record first (a write needs the
// old record for the counters, the expiry index and the old version), and
// that seek was half the CPU time of a pipelined GET or SET.
//
// The cache is exact, never stale, because it is only used under the
// store's lock and every write of a metadata record goes through a Tx:
// putMeta and deleteMeta note the new record in the Tx (Tx.pending), a
// FLUSHDB notes the flushed database (Tx.flushed), and Commit applies them
// to the cache once the batch is durable in the store; a rolled-back or
// failed Tx leaves the cache alone. A record read from storage under the
// lock is the committed one and is cached as it is. Absent keys are cached
// too (a nil record), since SET on a new key reads before it writes.
//
// Its size is bounded by bytes: past the bound, arbitrary entries are
// dropped (Go's map iteration order is random enough for an accelerator).
// Records larger than maxCachedMeta (big strings) are not cached.
type metaCache struct {
	m     map[string][]byte // physical db + key -> encoded record; nil for absent
	bytes int64
	max   int64
}

// maxCachedMeta is the largest record the cache holds.
const maxCachedMeta = 4 << 10

// metaCacheOverhead approximates the bytes an entry costs beyond its key
// and record: the map slot, string and slice headers.
const metaCacheOverhead = 64

func newMetaCache(max int64) *metaCache {
	return &metaCache{m: make(map[string][]byte), max: max}
}

// get returns the cached record of key; found reports whether the cache
// knows the key at all, rec is nil when the key is known to be absent.
// rec belongs to the cache: callers copy it before handing it out.
func (c *metaCache) get(key []byte) (rec []byte, found bool) {
	if c.max <= 0 {
		return nil, false
	}
	rec, found = c.m[string(key)]
	return rec, found
}

// put records that key holds rec (nil for absent); rec is copied.
func (c *metaCache) put(key, rec []byte) {
	if c.max <= 0 {
		return
	}
	if len(rec) > maxCachedMeta {
		c.drop(key)
		return
	}
	var own []byte
	if rec != nil {
		own = append(make([]byte, 0, len(rec)), rec...)
	}
	if old, ok := c.m[string(key)]; ok {
		c.bytes += int64(len(own) - len(old))
		c.m[string(key)] = own
	} else {
		c.m[string(key)] = own
		c.bytes += int64(len(key)+len(own)) + metaCacheOverhead
	}
	if c.bytes > c.max {
		c.shrink()
	}
}

// drop forgets key.
func (c *metaCache) drop(key []byte) {
	if old, ok := c.m[string(key)]; ok {
		delete(c.m, string(key))
		c.bytes -= int64(len(key)+len(old)) + metaCacheOverhead
	}
}

// shrink drops arbitrary entries until the cache is at most 7/8 full, so
// that the next few puts do not shrink again.
func (c *metaCache) shrink() {
	target := c.max - c.max/8
	for k, v := range c.m {
		if c.bytes <= target {
			return
		}
		delete(c.m, k)
		c.bytes -= int64(len(k)+len(v)) + metaCacheOverhead
	}
}

// clear forgets everything (after a FLUSHDB or FLUSHALL).
func (c *metaCache) clear() {
	clear(c.m)
	c.bytes = 0
}
