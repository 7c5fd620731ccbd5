package kv

// sharedIntegers is how many small integers Redis keeps as shared objects
// (0 to 9999): a string holding one of them reports a reference count of
// sharedRefCount.
const (
	sharedIntegers = 10000
	sharedRefCount = 1<<31 - 1
)

// RefCount returns what OBJECT REFCOUNT reports for key: Redis's count for
// its shared objects (2147483647) when the value is a string holding an
// integer from 0 to 9999 and shareIntegers is set (Redis does not share
// them under an LRU or LFU maxmemory policy), otherwise 1. ok is false when
// the key does not exist. The access is not recorded.
func (tx *Tx) RefCount(key []byte, shareIntegers bool) (n int64, ok bool, err error) {
	m, ok, err := tx.lookup(key)
	if err != nil || !ok {
		return 0, false, err
	}
	if m.Type == TypeString && shareIntegers {
		if v, isInt := ParseInt(m.Payload); isInt && v >= 0 && v < sharedIntegers {
			return sharedRefCount, true, nil
		}
	}
	return 1, true, nil
}
