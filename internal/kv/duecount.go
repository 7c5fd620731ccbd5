package kv

import "bytes"

// dueCount remembers, for one physical db, how many entries the expiry
// index holds below a time (keys that had expired by then) and the sum of
// their expiry times, so that DBSIZE and INFO keyspace, which subtract the
// keys that have expired but are still stored, do not walk all of them on
// every call: that walk is as long as the backlog and holds the store's
// lock, so the sweeper would wait for it.
//
// The count is exact: it is kept under the store's lock, moved by every
// Tx that adds or removes an entry below upTo (putMeta, deleteMeta: the
// only writers of the index), forgotten when the db is flushed, and
// brought to a Tx's "now" by walking only the entries between upTo and
// now. A Tx that has written anything counts by the full walk instead, so
// that the cache only ever holds committed state.
type dueCount struct {
	valid bool
	upTo  int64 // Unix ms: the count covers entries with expireAt < upTo
	n     int64
	sum   i128
}

// dueDelta is what a Tx changed below the cached bounds.
type dueDelta struct {
	n   int64
	sum i128
}

// noteDueEntry records that the Tx adds (sign 1) or removes (sign -1) the
// expiry index entry of a key expiring at at in physical db pdb.
func (tx *Tx) noteDueEntry(pdb byte, at int64, sign int64) {
	if c := &tx.s.dueCounts[pdb]; c.valid && at < c.upTo {
		d := &tx.dueDeltas[pdb]
		d.n += sign
		d.sum.add(sign * at)
	}
}

// commitDue applies the Tx's changes to the cached counts; the caller
// holds the store's lock and the Tx's batch is committed.
func (tx *Tx) commitDue() {
	for pdb := range tx.dueDeltas {
		c := &tx.s.dueCounts[pdb]
		if tx.flushed[pdb] {
			*c = dueCount{}
			continue
		}
		if d := tx.dueDeltas[pdb]; c.valid && d.n != 0 {
			c.n += d.n
			c.sum.addI(d.sum)
		}
	}
	tx.dueDeltas = [NumDBs]dueDelta{}
}

// due counts the keys of the current database that have logically expired
// but are still stored, and sums their expiry times: from the cache when
// the Tx has written nothing, by walking the due part of the index
// otherwise.
func (tx *Tx) due() (n int64, sum i128, err error) {
	if tx.b != nil && !tx.b.Empty() {
		return tx.walkDue()
	}
	c := &tx.s.dueCounts[tx.pdb]
	if !c.valid {
		n, sum, err := tx.walkDue()
		if err != nil {
			return 0, sum, err
		}
		*c = dueCount{valid: true, upTo: tx.now, n: n, sum: sum}
		return n, sum, nil
	}
	if tx.now != c.upTo {
		lo, hi, sign := c.upTo, tx.now, int64(1)
		if hi < lo {
			lo, hi, sign = hi, lo, -1
		}
		dn, dsum, err := tx.countEntries(expiryKey(nil, tx.pdb, lo, nil), expiryKey(nil, tx.pdb, hi, nil))
		if err != nil {
			return 0, sum, err
		}
		if sign < 0 {
			dn, dsum = -dn, dsum.neg()
		}
		c.n += dn
		c.sum.addI(dsum)
		c.upTo = tx.now
	}
	return c.n, c.sum, nil
}

// walkDue counts the due entries of the current database from scratch.
//
// The walk starts at Store.dueFrom, below which there is no entry, and
// moves it up to the first entry found (or to its end when there is none)
// when the Tx has written nothing yet, so that what it saw is the
// committed index.
func (tx *Tx) walkDue() (n int64, sum i128, err error) {
	lo := tx.s.dueFrom[tx.pdb]
	if lo == nil {
		lo = expiryPrefix(tx.pdb)
	}
	hi := expiryKey(nil, tx.pdb, tx.now, nil) // entries with expireAt < now
	if bytes.Compare(lo, hi) >= 0 {
		return 0, sum, nil
	}
	var first []byte
	n, sum, err = tx.eachEntry(lo, hi, func(key []byte) {
		if first == nil {
			first = bytes.Clone(key)
		}
	})
	if err != nil {
		return 0, sum, err
	}
	if tx.b == nil || tx.b.Empty() {
		if first == nil {
			first = hi
		}
		tx.s.dueFrom[tx.pdb] = first
	}
	return n, sum, nil
}

// countEntries counts the expiry index entries in [lo, hi) and sums their
// times.
func (tx *Tx) countEntries(lo, hi []byte) (int64, i128, error) {
	if from := tx.s.dueFrom[tx.pdb]; from != nil && bytes.Compare(lo, from) < 0 {
		lo = from // nothing is stored below the watermark
	}
	if bytes.Compare(lo, hi) >= 0 {
		return 0, i128{}, nil
	}
	return tx.eachEntry(lo, hi, nil)
}

// eachEntry counts the expiry index entries in [lo, hi), sums their times
// and calls f, when not nil, with each key.
func (tx *Tx) eachEntry(lo, hi []byte, f func(key []byte)) (n int64, sum i128, err error) {
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return 0, sum, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if at, _, ok := decodeExpiryKey(it.Key()); ok {
			if f != nil {
				f(it.Key())
			}
			n++
			sum.add(at)
		}
	}
	if err := it.Close(); err != nil {
		return 0, sum, err
	}
	return n, sum, nil
}

// checkDueCount verifies the store's cached count of due entries of pdb
// against a recount of the snapshot's expiry index.
func (ck *checker) checkDueCount(pdb byte) error {
	c := ck.dueCounts[pdb]
	if !c.valid {
		return nil
	}
	it, err := ck.snap.NewIter(expiryPrefix(pdb), expiryKey(nil, pdb, c.upTo, nil))
	if err != nil {
		return err
	}
	defer it.Close()
	var n int64
	var sum i128
	for ok := it.First(); ok; ok = it.Next() {
		if err := ck.step(); err != nil {
			return err
		}
		if at, _, ok := decodeExpiryKey(it.Key()); ok {
			n++
			sum.add(at)
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if c.n != n || c.sum != sum {
		ck.report(ProblemCounters, int(pdb), nil, "the due count says %d keys expired before %d (expiry sum %s); the expiry index holds %d (%s)",
			c.n, c.upTo, c.sum.big(), n, sum.big())
	}
	return nil
}
