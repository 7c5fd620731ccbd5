package kv

import (
	"bytes"
	"sync/atomic"

	"github.com/mayfly/mayfly/internal/storage"
)

// Reads ahead of the replica set. On a member of a replica set, Commit
// publishes a Tx and proposes its batch, and the batch reaches storage only
// once raft has committed it: a raft round trip later. A Tx that reads
// storage would then wait for that round trip holding the store's lock
// (Tx.applied), so Txs that read, like a SET or INCR of a key the metadata
// cache does not hold, would run one round trip each.
//
// Most reads do not need to wait: storage is stale only for the keys the
// proposed and not yet applied batches wrote. The store numbers its
// proposals and remembers, for each metadata key, the last proposal that
// wrote it, for each element version (the keys under subPrefix(db,
// version) of one hash, set, sorted set, list or stream) the last
// proposal that wrote one of its elements, and the last proposal holding a
// FLUSHDB, a FLUSHALL or a range deletion across versions. A metadata read
// that misses the cache, and a read of the elements of one version
// (Tx.elems), waits for the apply only when such a proposal is not yet
// known to be applied. Every other storage read waits as before.
//
// A standalone store applies its batches locally, within a Tx's time: it
// keeps no such record and its reads wait as they always did.

// unapplied records the metadata writes of proposals not yet known to be
// applied. Its fields are used under the store's lock, except applied.
type unapplied struct {
	// last is the number of the last proposal.
	last uint64
	// applied is the number of a proposal known to be applied to storage,
	// with every one before it; set holding commitMu or no lock.
	applied atomic.Uint64
	// keys maps a metadata key to the last proposal that wrote it.
	keys map[string]uint64
	// versions maps an element version to the last proposal that wrote
	// one of its elements.
	versions map[uint64]uint64
	// flush is the last proposal that holds a flush, or a range deletion
	// that is not within one version.
	flush uint64
	// written lists each recorded proposal's keys, oldest first, so
	// that the record of applied ones is dropped.
	written []proposalKeys
}

// proposalKeys are the metadata keys and the element versions one
// proposal wrote.
type proposalKeys struct {
	seq      uint64
	keys     []string
	versions []uint64
}

// next numbers a new proposal, whose keys note records; it first forgets
// the proposals known to be applied.
func (u *unapplied) next() uint64 {
	applied := u.applied.Load()
	i := 0
	for ; i < len(u.written) && u.written[i].seq <= applied; i++ {
		for _, k := range u.written[i].keys {
			if u.keys[k] == u.written[i].seq {
				delete(u.keys, k)
			}
		}
		for _, v := range u.written[i].versions {
			if u.versions[v] == u.written[i].seq {
				delete(u.versions, v)
			}
		}
	}
	if i > 0 {
		n := copy(u.written, u.written[i:])
		clear(u.written[n:])
		u.written = u.written[:n]
	}
	u.last++
	u.written = append(u.written, proposalKeys{seq: u.last})
	return u.last
}

// note records that proposal seq, the last numbered, writes metadata key
// mk.
func (u *unapplied) note(seq uint64, mk string) {
	if u.keys == nil {
		u.keys = make(map[string]uint64)
	}
	u.keys[mk] = seq
	w := &u.written[len(u.written)-1]
	w.keys = append(w.keys, mk)
}

// noteFlush records that proposal seq holds a flush.
func (u *unapplied) noteFlush(seq uint64) { u.flush = seq }

// noteWrites records the element versions batch b, proposal seq, writes:
// a key under subPrefix(db, version), or a range deletion within one such
// prefix, names its version. A range deletion that holds elements of
// several versions counts as a flush, and so does a batch whose keys
// cannot be read.
func (u *unapplied) noteWrites(seq uint64, b *storage.Batch) {
	w := &u.written[len(u.written)-1]
	err := b.Keys(func(key, end []byte) {
		db, v, ok := elemVersion(key)
		if end != nil {
			edb, ev, eok := elemVersion(end)
			within := ok && eok && edb == db && (ev == v || ev == v+1 && len(end) == subPrefixLen)
			if !within {
				if bytes.Compare(key, []byte{storage.PrefixRedisSub + 1}) < 0 && bytes.Compare(end, []byte{storage.PrefixRedisSub}) > 0 {
					u.flush = seq // the range holds elements of several versions
				}
				return
			}
		}
		if !ok {
			return
		}
		if u.versions == nil {
			u.versions = make(map[uint64]uint64)
		}
		if u.versions[v] != seq {
			u.versions[v] = seq
			w.versions = append(w.versions, v)
		}
	})
	if err != nil {
		u.flush = seq
	}
}

// current reports whether storage already holds the latest record of
// metadata key mk, as far as the recorded proposals tell.
func (u *unapplied) current(mk []byte) bool {
	applied := u.applied.Load()
	if u.flush > applied {
		return false
	}
	seq, ok := u.keys[string(mk)]
	return !ok || seq <= applied
}

// currentVersion reports whether storage already holds the latest
// elements of version v, as far as the recorded proposals tell.
func (u *unapplied) currentVersion(v uint64) bool {
	applied := u.applied.Load()
	if u.flush > applied {
		return false
	}
	seq, ok := u.versions[v]
	return !ok || seq <= applied
}

// advance records that proposal seq, and every one before it, is applied.
func (u *unapplied) advance(seq uint64) {
	for {
		cur := u.applied.Load()
		if seq <= cur || u.applied.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// reset forgets every proposal, once none is in flight (a reload).
func (u *unapplied) reset() {
	u.keys = nil
	u.versions = nil
	u.flush = 0
	u.written = nil
	u.applied.Store(u.last)
}
