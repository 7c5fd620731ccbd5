package kv

import (
	"math/rand/v2"

	"github.com/mayfly/mayfly/internal/storage"
)

// randomWalkMax is the largest number of stored keys for which RandomKey
// picks a position uniformly and walks to it; above it, it seeks to a
// random point of the range the keys span.
const randomWalkMax = 1024

// randomTries is how many random positions RandomKey tries before it walks
// in order for a live key (a database of mostly expired keys).
const randomTries = 100

// RandomKey returns a live key of the current database; ok is false when
// the database has none. In a small database every key is equally likely;
// in a large one the pick lands at a random point between the first and
// the last key, so every key can come back at the cost of a few seeks.
func (tx *Tx) RandomKey() ([]byte, bool, error) {
	lo := metaPrefix(tx.pdb)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, false, err
	}
	defer it.Close()
	stored := tx.counters(tx.pdb).keys
	for range randomTries {
		var ok bool
		if stored <= randomWalkMax {
			ok = walkTo(it, rand.Int64N(max(stored, 1)))
		} else {
			ok = seekRandom(it, lo)
		}
		if !ok {
			return nil, false, it.Error()
		}
		if live, err := tx.visible(it.Value()); err != nil {
			return nil, false, err
		} else if live {
			return append([]byte(nil), it.Key()[len(lo):]...), true, nil
		}
	}
	for ok := it.First(); ok; ok = it.Next() {
		if live, err := tx.visible(it.Value()); err != nil {
			return nil, false, err
		} else if live {
			return append([]byte(nil), it.Key()[len(lo):]...), true, nil
		}
	}
	return nil, false, it.Error()
}

// walkTo moves it to the n-th entry from the first, wrapping to the first
// when there are fewer (the count it was given is the store's, which may
// be ahead of what the iterator sees); false when there is none.
func walkTo(it *storage.Iter, n int64) bool {
	ok := it.First()
	for i := int64(0); ok && i < n; i++ {
		if ok = it.Next(); !ok {
			ok = it.First()
			break
		}
	}
	return ok
}

// maxDescent bounds how many bytes seekRandom descends.
const maxDescent = 64

// seekRandom moves it to a random entry under prefix lo by descending the
// keys byte by byte: under the prefix chosen so far it finds the first and
// the last entry, and past their common prefix draws a byte between theirs;
// the first entry at or after that byte fixes the next prefix. A branch is
// so chosen about as often as the bytes before it are free, and every
// entry can be picked. False when there is no entry.
func seekRandom(it *storage.Iter, lo []byte) bool {
	prefix := append([]byte(nil), lo...)
	for range maxDescent {
		if !it.SeekGE(prefix) {
			return it.First()
		}
		first := append([]byte(nil), it.Key()...)
		if end := storage.PrefixEnd(prefix); end == nil || !it.SeekLT(end) {
			it.Last()
		}
		last := it.Key()
		cp := commonPrefixLen(first, last)
		if cp == len(last) { // first == last: a single entry is left
			return it.SeekGE(first)
		}
		from := 0
		if cp < len(first) {
			from = int(first[cp])
		}
		b := byte(from + rand.IntN(int(last[cp])-from+1))
		if cp == len(first) && b == 0 { // first is a prefix of the others
			return it.SeekGE(first)
		}
		target := append(append([]byte(nil), last[:cp]...), b)
		if !it.SeekGE(target) {
			return it.First()
		}
		prefix = append(prefix[:0], it.Key()[:cp+1]...)
	}
	return it.Valid()
}

func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
