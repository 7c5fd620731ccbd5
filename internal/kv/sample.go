package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/mayfly/mayfly/internal/storage"
)

// Random picks from collections (SRANDMEMBER, SPOP, HRANDFIELD,
// ZRANDMEMBER). The elements of a collection are sub-keys in byte order
// with no rank index, so a uniform pick is made by rank: the picked ranks
// are drawn first, sorted, and one ordered walk collects them. Every
// element is then exactly equally likely and distinct ranks give distinct
// elements. The walk stops at the highest picked rank, so its cost is the
// collection's size at most; collections larger than rankWalkLimit are
// sampled by random seeks instead (see seekSample).

// MaxRandomPicks is the most picks with repetition (SRANDMEMBER,
// HRANDFIELD and ZRANDMEMBER with a negative count) one call returns.
// Redis accepts any count down to -LONG_MAX and streams the picks until
// the client's output buffer limit closes it, or memory runs out; mayfly
// builds a reply in memory, so it refuses larger counts with
// ErrTooManyPicks instead.
const MaxRandomPicks = 1 << 20

// rankWalkLimit is the largest collection sampled by an ordered walk.
const rankWalkLimit = 1 << 17

// seekWindow is how many elements past a random seek's landing point a
// seek pick may move, at random: it spreads each landing over its
// neighbours, so elements after a wide gap in the key space are not
// favoured as much as the landing alone would favour them.
const seekWindow = 32

// runtimeSource is the runtime's random generator as a rand.Source.
type runtimeSource struct{}

func (runtimeSource) Uint64() uint64 { return rand.Uint64() }

// collRandom returns n sub-key suffixes (with values) under namespace ns
// of collection version v (of size elements) picked at random, in random
// order. With unique they are distinct and there are min(n, size) of
// them; otherwise there are n picks, each of any element with the same
// probability.
func (tx *Tx) collRandom(v uint64, ns []byte, size int64, n int64, unique bool) (keys, vals [][]byte, err error) {
	return tx.collRandomWith(rand.New(runtimeSource{}), v, ns, size, n, unique)
}

// collRandomWith is collRandom drawing from r.
func (tx *Tx) collRandomWith(r *rand.Rand, v uint64, ns []byte, size int64, n int64, unique bool) (keys, vals [][]byte, err error) {
	if n <= 0 || size <= 0 {
		return nil, nil, nil
	}
	if !unique && n > MaxRandomPicks {
		return nil, nil, fmt.Errorf("%w: %d of at most %d", ErrTooManyPicks, n, MaxRandomPicks)
	}
	if unique {
		n = min(n, size)
	}
	if size > rankWalkLimit && (!unique || n*4 <= size) {
		keys, vals, ok, err := tx.seekSample(r, v, ns, n, unique)
		if err != nil || ok {
			return keys, vals, err
		}
	}
	keys, vals, seen, err := tx.rankSample(r, v, ns, pickRanks(r, size, n, unique))
	if err == nil && seen < size && int64(len(keys)) < n {
		// The record counted more elements than are stored: draw again
		// among those that are.
		if seen == 0 {
			return nil, nil, nil
		}
		keys, vals, _, err = tx.rankSample(r, v, ns, pickRanks(r, seen, min(n, seen), unique))
		if !unique && err == nil {
			// Picks with repetition still number n.
			for int64(len(keys)) < n {
				i := r.IntN(len(keys))
				keys, vals = append(keys, keys[i]), append(vals, vals[i])
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	r.Shuffle(len(keys), func(i, j int) {
		keys[i], keys[j] = keys[j], keys[i]
		vals[i], vals[j] = vals[j], vals[i]
	})
	return keys, vals, nil
}

// pickRanks draws n ranks in [0, size), sorted: distinct ones with unique
// (n <= size; Floyd's algorithm, or a partial shuffle when n is a large
// part of size), otherwise n independent uniform ones.
func pickRanks(r *rand.Rand, size, n int64, unique bool) []int64 {
	ranks := make([]int64, 0, n)
	switch {
	case !unique:
		for range n {
			ranks = append(ranks, r.Int64N(size))
		}
	case n*2 > size:
		all := make([]int64, size)
		for i := range all {
			all[i] = int64(i)
		}
		for i := range n {
			j := i + r.Int64N(size-i)
			all[i], all[j] = all[j], all[i]
		}
		ranks = append(ranks, all[:n]...)
	default:
		chosen := make(map[int64]struct{}, n)
		for j := size - n; j < size; j++ {
			t := r.Int64N(j + 1)
			if _, dup := chosen[t]; dup {
				t = j
			}
			chosen[t] = struct{}{}
			ranks = append(ranks, t)
		}
	}
	slices.Sort(ranks)
	return ranks
}

// rankSample walks the elements in order and returns those at ranks
// (sorted, repeats allowed: a repeated rank is returned once per
// occurrence), with how many elements it stepped over; it stops at the
// last rank.
func (tx *Tx) rankSample(r *rand.Rand, v uint64, ns []byte, ranks []int64) (keys, vals [][]byte, seen int64, err error) {
	if len(ranks) == 0 {
		return nil, nil, 0, nil
	}
	lo := tx.elemKey(v, ns)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, nil, 0, err
	}
	keys = make([][]byte, 0, len(ranks))
	vals = make([][]byte, 0, len(ranks))
	j := 0
	for ok := it.First(); ok && j < len(ranks); ok = it.Next() {
		if ranks[j] == seen {
			k := append([]byte{}, it.Key()[len(lo):]...)
			val := append([]byte{}, it.Value()...)
			for ; j < len(ranks) && ranks[j] == seen; j++ {
				keys, vals = append(keys, k), append(vals, val)
			}
		}
		seen++
	}
	if j < len(ranks) {
		// The walk ran off the end: seen is the true element count.
		for it.Next() {
			seen++
		}
	}
	return keys, vals, seen, it.Close()
}

// seekSample picks n elements of a large collection by random seeks into
// the key range between its first and last element, each landing moved
// forward by a random number (below seekWindow) of elements. ok is false
// when the picks could not be completed within a bounded number of tries
// (few distinct keys in a skewed key space); the caller then walks.
func (tx *Tx) seekSample(r *rand.Rand, v uint64, ns []byte, n int64, unique bool) (keys, vals [][]byte, ok bool, err error) {
	lo := tx.elemKey(v, ns)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, nil, false, err
	}
	defer it.Close()
	if !it.First() {
		return nil, nil, false, it.Error()
	}
	first := append([]byte{}, it.Key()[len(lo):]...)
	if !it.Last() {
		return nil, nil, false, it.Error()
	}
	last := append([]byte{}, it.Key()[len(lo):]...)
	var seen map[string]bool
	if unique {
		seen = make(map[string]bool, n)
	}
	target := append([]byte{}, lo...)
	for tries := int64(0); int64(len(keys)) < n; tries++ {
		if tries >= 8*n+64 {
			return nil, nil, false, it.Error()
		}
		target = append(target[:len(lo)], randomBetween(r, first, last)...)
		if !it.SeekGE(target) && !it.First() {
			return nil, nil, false, it.Error()
		}
		for step := r.IntN(seekWindow); step > 0; step-- {
			if !it.Next() && !it.First() {
				return nil, nil, false, it.Error()
			}
		}
		k := it.Key()[len(lo):]
		if unique {
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
		}
		keys = append(keys, append([]byte{}, k...))
		vals = append(vals, append([]byte{}, it.Value()...))
	}
	return keys, vals, true, it.Error()
}

// randomBetween returns a byte string between first and last (inclusive)
// chosen uniformly over the 8 bytes that follow their common prefix, so a
// seek lands on a random element even when all share a long prefix.
func randomBetween(r *rand.Rand, first, last []byte) []byte {
	p := 0
	for p < len(first) && p < len(last) && first[p] == last[p] {
		p++
	}
	var fa, la [8]byte
	copy(fa[:], first[p:])
	copy(la[:], last[p:])
	a, b := binary.BigEndian.Uint64(fa[:]), binary.BigEndian.Uint64(la[:])
	if b <= a {
		return bytes.Clone(first)
	}
	x := a + r.Uint64N(b-a) + 1
	out := append([]byte{}, first[:p]...)
	return binary.BigEndian.AppendUint64(out, x)
}
