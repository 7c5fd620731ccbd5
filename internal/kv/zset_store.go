package kv

// ZStore replaces dst (of any type, and its expiry) with a sorted set of
// els, whose members must be distinct, and fires event on it; an empty els
// deletes dst (`del` when it was there). It is the store step of commands
// that compute a sorted set elsewhere (GEOSEARCHSTORE, GEORADIUS STORE).
func (tx *Tx) ZStore(dst []byte, els []ZMember, event string) error {
	return tx.storeZSet(dst, els, event)
}
