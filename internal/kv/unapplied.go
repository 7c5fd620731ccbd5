package kv

import "sync/atomic"

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
// wrote it (and the last one holding a FLUSHDB or FLUSHALL); a metadata
// read that misses the cache waits for the apply only when such a
// proposal is not yet known to be applied. Every other storage read waits
// as before.
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
	// flush is the last proposal that holds a flush.
	flush uint64
	// written lists each recorded proposal's keys, oldest first, so
	// that the record of applied ones is dropped.
	written []proposalKeys
}

// proposalKeys are the metadata keys one proposal wrote.
type proposalKeys struct {
	seq  uint64
	keys []string
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
	u.flush = 0
	u.written = nil
	u.applied.Store(u.last)
}
