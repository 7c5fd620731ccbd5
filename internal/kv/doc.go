// Package kv is the Redis data model on storage: logical databases of keys
// holding strings (and, following the same pattern, lists, hashes, sets,
// sorted sets and streams), each with an optional absolute expiry.
//
// # Design
//
// Every key has one metadata record (meta.go) under PrefixRedisMeta:
// [db][key] -> {type, version, expireAt ms (0 = none), payload}. A string's
// payload is its value, so GET and SET touch one record. Bitmaps
// (bitmap.go) and HyperLogLogs (hyperloglog.go, in package hll's
// representation) are strings too. A collection's
// payload starts with its element count, and its elements are sub-keys
// under PrefixRedisSub: [db][version][element...]. Versions are unique in
// the whole store (Tx.NewVersion), so sub-keys need not name the key:
//
//   - DEL, expiry and overwriting of a huge collection are O(1): the
//     metadata goes (or gets a new version) and a garbage record
//     PrefixGarbage [db][version] is written in the same batch; the
//     collector (garbage.go, Store.Run) later removes the old version's
//     sub-keys with one range deletion;
//   - RENAME moves only the metadata record, keeping the version;
//   - FLUSHDB is five range deletions; SWAPDB rewrites the 16-byte map from
//     logical to physical databases (the db byte in every key is physical).
//
// The expiry index (PrefixExpiry [db][expireAt ms][key]) is written in the
// same batch as the metadata, always through Tx.PutMeta and Tx.DeleteMeta,
// which also keep the per-database counters exact: keys, keys with an
// expiry, the sum of their expiry times (for avg_ttl), hashes with a
// field expiry (for subexpiry, subexpiry.go), and the keys' counted memory
// that maxmemory bounds (evict.go: eviction deletes keys with an `evicted`
// event when it is over the bound). The counters live
// in memory, published at each commit, and are stored in records of their
// own rewritten in each commit's batch (counters_store.go), so that Open
// reads them instead of scanning every key.
//
// # Time and visibility
//
// Times are absolute Unix milliseconds from the injected clock. A Tx reads
// the clock once per command (Tick); an EXEC runs with one frozen time. A
// key is expired when now > expireAt (alive at exactly its expiry ms), and
// an expired key is never visible: Lookup deletes it lazily (one `expired`
// event) and every scan (KEYS, SCAN, RANDOMKEY) skips it. DBSIZE and INFO
// keyspace subtract the due part of the expiry index from the exact counts,
// so they never count an expired key either. The sweeper deletes keys
// through the Sources (source.go), one expiry.Source per logical database,
// whose items are due at expireAt+1 ms; each deletion emits `expired` once.
//
// # Concurrency
//
// One Tx is open at a time (Store.Begin takes the lock, Commit or Rollback
// releases it), so commands are serializable as in Redis's single thread.
// The wire layer runs a whole pipeline chunk in one Tx: one batch, one
// commit. ReapBatch and the garbage collector take the same lock per batch.
// Events and touched keys are handed to the Observer after each commit.
//
// # Adding a collection type
//
// A collection file (list.go, hash.go, ...) follows strings.go: look the key
// up with Lookup or LookupRead, return ErrWrongType for another type, create
// a new key with Meta{Type: TypeList, Version: tx.NewVersion()} and
// SetCount, keep Meta.ElemBytes beside the count as elements come and go
// (elembytes.go: what the maxmemory bound and MEMORY USAGE count, and what
// recountElemBytes must recount), read and write elements under
// tx.SubPrefix(m) through
// tx.Batch(), then store the record with PutMeta (keeping ExpireAt: in-place
// changes keep the TTL) or DeleteMeta when the last element goes (with a
// `del` event). Emit events with tx.Notify and the type's Class. Replacing a
// key (SET over a list, *STORE) is PutMeta with the new record: the old
// version is dropped to the collector automatically.
//
// # Testing
//
// Tests use an in-memory storage.Store and a fake clock; expiry is driven by
// moving the clock and reaping the sources (expiry.Drain), never by
// sleeping.
package kv
