package kv

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ZRandMember returns random elements of the sorted set at key, as
// ZRANDMEMBER with a count: n >= 0 asks for up to n distinct elements, in
// random order, or for the whole sorted set (highest score first, as Redis
// 7 replies) when n reaches its size; n < 0 asks for exactly -n picks that
// may repeat (ErrTooManyPicks beyond MaxRandomPicks). ok is false when
// the key is missing.
func (tx *Tx) ZRandMember(key []byte, n int64) ([]ZMember, bool, error) {
	z, err := tx.zsetFor(key, true)
	if err != nil || !z.found {
		return nil, false, err
	}
	unique := n >= 0
	if !unique {
		n = -n
	}
	if unique && n >= z.count {
		out, err := tx.zsetRange(&z, ZRangeSpec{Kind: ZByRank, Start: 0, Stop: -1, Rev: true})
		return out, true, err
	}
	ns := []byte{zsetMemberNS}
	keys, vals, err := tx.collRandom(z.version, ns, z.count, n, unique)
	if err != nil {
		return nil, false, err
	}
	out := make([]ZMember, len(keys))
	for i, k := range keys {
		if len(vals[i]) != 8 {
			return nil, false, fmt.Errorf("%w: sorted set member record of %d bytes", ErrCorrupt, len(vals[i]))
		}
		out[i] = ZMember{Member: k, Score: math.Float64frombits(binary.BigEndian.Uint64(vals[i]))}
	}
	return out, true, nil
}
