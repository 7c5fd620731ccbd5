package kv

import (
	"math/big"
	"math/bits"
)

// i128 is a signed 128-bit accumulator (two's complement), wide enough to
// sum the expiry times of any number of keys without overflow.
type i128 struct {
	hi int64
	lo uint64
}

func (a *i128) add(v int64) {
	var hi int64
	if v < 0 {
		hi = -1
	}
	lo, carry := bits.Add64(a.lo, uint64(v), 0)
	a.lo = lo
	a.hi += hi + int64(carry)
}

func (a *i128) addI(b i128) {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	a.lo = lo
	a.hi += b.hi + int64(carry)
}

// neg returns -a.
func (a i128) neg() i128 {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return i128{hi: -a.hi - int64(borrow), lo: lo}
}

func (a i128) big() *big.Int {
	v := new(big.Int).SetInt64(a.hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(a.lo))
}

// base returns the committed counters of pdb as this Tx sees them.
func (tx *Tx) counters(pdb byte) counters {
	c := tx.s.c[pdb]
	if tx.flushed[pdb] {
		c = counters{}
	}
	d := tx.delta[pdb]
	c.keys += d.keys
	c.expires += d.expires
	c.expSum.addI(d.expSum)
	c.sub.add(d.sub)
	c.bytes += d.bytes
	return c
}

// DBSize returns the number of live keys of the current database: the exact
// count of stored keys minus the expired ones the sweeper has not deleted
// yet (a walk over the due part of the expiry index, usually empty) and
// minus the hashes whose fields have all expired (a walk over the due part
// of the field expiry index, usually empty too).
func (tx *Tx) DBSize() (int64, error) {
	n, _, err := tx.due()
	if err != nil {
		return 0, err
	}
	g, _, _, err := tx.goneHashes()
	if err != nil {
		return 0, err
	}
	return tx.counters(tx.pdb).keys - n - g, nil
}

func (tx *Tx) keyspaceInfo() (KeyspaceInfo, error) {
	c := tx.counters(tx.pdb)
	n, sum, err := tx.due()
	if err != nil {
		return KeyspaceInfo{}, err
	}
	g, gexp, gsum, err := tx.goneHashes()
	if err != nil {
		return KeyspaceInfo{}, err
	}
	sum.addI(gsum)
	ki := KeyspaceInfo{DB: tx.ldb, Keys: c.keys - n - g, Expires: c.expires - n - gexp}
	if ki.Subexpiry, err = tx.subexpiry(c, n); err != nil {
		return KeyspaceInfo{}, err
	}
	if ki.Expires > 0 {
		live := c.expSum
		neg := sum.big()
		total := live.big()
		total.Sub(total, neg)
		total.Sub(total, big.NewInt(0).Mul(big.NewInt(ki.Expires), big.NewInt(tx.now)))
		total.Quo(total, big.NewInt(ki.Expires))
		if total.Sign() > 0 && total.IsInt64() {
			ki.AvgTTL = total.Int64()
		}
	}
	return ki, nil
}

// KeyspaceInfo returns the INFO keyspace figures of the current database.
func (tx *Tx) KeyspaceInfo() (KeyspaceInfo, error) { return tx.keyspaceInfo() }
