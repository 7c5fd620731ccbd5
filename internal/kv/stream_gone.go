package kv

// StreamObserver is implemented by an Observer that wants to know which
// streams each commit deleted, expired, renamed away or replaced with
// another value: Redis ends the wait of the clients blocked on them in
// XREADGROUP. A Touch with All names every key of its database (FLUSHDB,
// FLUSHALL). StreamsGone is called after Committed, under the same rules:
// the store's lock is held, it must not block nor call back into the
// Store.
type StreamObserver interface {
	StreamsGone(keys []Touch)
}

// streamGone records that the stream key of logical database db went.
func (tx *Tx) streamGone(db int, key []byte) {
	if _, ok := tx.s.observer.(StreamObserver); ok {
		tx.streamsGone = append(tx.streamsGone, Touch{DB: db, Key: string(key)})
	}
}

// reportStreamsGone hands the streams the Tx removed to the observer.
func (tx *Tx) reportStreamsGone() {
	if o, ok := tx.s.observer.(StreamObserver); ok && len(tx.streamsGone) > 0 {
		o.StreamsGone(tx.streamsGone)
	}
}
