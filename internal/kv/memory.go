package kv

import "github.com/mayfly/mayfly/internal/storage"

// Estimated overheads of MemoryUsage, in bytes: a key's record, and each
// element of a collection.
const (
	keyOverhead  = 56
	elemOverhead = 24
)

// MemoryUsage estimates the bytes key and its value take, as Redis's
// MEMORY USAGE does: the key and its record, plus for a collection its
// element count times the average size of its first samples elements (all
// of them when samples is 0). ok is false when the key does not exist.
func (tx *Tx) MemoryUsage(key []byte, samples int64) (n int64, ok bool, err error) {
	m, ok, err := tx.lookup(key)
	if err != nil || !ok {
		return 0, false, err
	}
	n = keyOverhead + int64(len(key)) + int64(len(m.Payload))
	if m.Type == TypeString {
		return n, true, nil
	}
	count := int64(m.Count())
	lo := tx.elemKey(m.Version)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return 0, false, err
	}
	var seen, bytes int64
	for valid := it.First(); valid && (samples == 0 || seen < samples); valid = it.Next() {
		seen++
		bytes += int64(len(it.Key())-len(lo)+len(it.Value())) + elemOverhead
	}
	if err := it.Close(); err != nil {
		return 0, false, err
	}
	if seen > 0 {
		n += bytes / seen * count
	}
	return n, true, nil
}
