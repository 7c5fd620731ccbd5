package kv

// keyOverhead is what a key counts on top of its name and its value: its
// record and the bookkeeping around it.
const keyOverhead = 56

// MemoryUsage returns the bytes key and its value count, the figure the
// maxmemory bound counts for it (keyCost): for a string keyOverhead + the
// key's length + the value's length, for a collection keyOverhead + the
// key's length + its record + its element bytes + elemOverhead per element.
// samples is accepted for MEMORY USAGE's SAMPLES option and changes
// nothing: the figure is exact. ok is false when the key does not exist.
func (tx *Tx) MemoryUsage(key []byte, _ int64) (n int64, ok bool, err error) {
	m, ok, err := tx.lookup(key)
	if err != nil || !ok {
		return 0, false, err
	}
	return keyCost(len(key), m), true, nil
}
