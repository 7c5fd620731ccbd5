package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// The expiry log: while it is on (SetExpiryLog), every key the expiry
// engine deletes, by the sweeper or by a read that finds it expired, and
// every hash field it expires is appended as an entry to one stream of
// logical database 0, in the same batch as the deletion, so a committed
// deletion always has its entry and a crash never leaves one without the
// other. An entry holds the fields db, key, field (hash fields only), due
// (the item's expiry time, Unix ms, as PEXPIRETIME showed it) and deleted
// (the deletion's time, Unix ms). Deletions by commands (DEL, UNLINK,
// HDEL, an expiry set in the past) and by eviction add nothing, nor does
// the expiry of the stream's own key. When the key holds another type
// than a stream, the entries are dropped.

// ExpiryLog is the expiry log's setting.
type ExpiryLog struct {
	// Key is the stream's key in logical database 0; empty turns the log
	// off.
	Key []byte
	// MaxLen trims the stream to about this many entries, as XADD MAXLEN ~
	// does; 0 keeps every entry.
	MaxLen int64
	// NodeEntries is how many entries a node of the stream holds
	// (stream-node-max-entries), which approximate trimming removes whole.
	NodeEntries int64
	// Appended, when set, is called after a commit that appended entries,
	// outside the store's lock: blocked readers of the stream may be woken.
	Appended func()
}

// expiryLogDB is the logical database of the expiry log's stream.
const expiryLogDB = 0

// expiryLogEntry is one expiry recorded by a Tx, appended at its commit.
type expiryLogEntry struct {
	db         int
	key, field []byte // field nil for a key
	due        int64
}

// SetExpiryLog installs the expiry log's setting; it applies to the Txs
// that commit afterwards.
func (s *Store) SetExpiryLog(l ExpiryLog) {
	if len(l.Key) == 0 {
		s.expiryLog.Store(nil)
		return
	}
	l.Key = bytes.Clone(l.Key)
	s.expiryLog.Store(&l)
}

// logExpiry records that the expiry engine deletes key of the current
// database (field nil) or its hash field field, due at due.
func (tx *Tx) logExpiry(key, field []byte, due int64) {
	l := tx.s.expiryLog.Load()
	if l == nil || (tx.ldb == expiryLogDB && field == nil && bytes.Equal(key, l.Key)) {
		return
	}
	e := expiryLogEntry{db: tx.ldb, key: bytes.Clone(key), due: due}
	if field != nil {
		e.field = bytes.Clone(field)
	}
	tx.expiryLog = append(tx.expiryLog, e)
}

// logHashFields records every field of the hash at key (record m) that
// has expired by now, before the whole hash is deleted for it.
func (tx *Tx) logHashFields(key []byte, m Meta) error {
	if tx.s.expiryLog.Load() == nil {
		return nil
	}
	h, err := tx.decodeHash(key, m)
	if err != nil {
		return err
	}
	lo := tx.elemKey(h.version, []byte{hashTimeNS})
	hi := tx.elemKey(h.version, []byte{hashTimeNS}, u64(uint64(tx.now)))
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()[len(lo):]
		if len(k) < 8 {
			it.Close()
			return fmt.Errorf("%w: hash time index key", ErrCorrupt)
		}
		tx.logExpiry(key, k[8:], int64(binary.BigEndian.Uint64(k[:8])))
	}
	return it.Close()
}

// appendExpiryLog appends the recorded expiries to the log's stream, in
// the Tx's batch, and reports whether it appended any.
func (tx *Tx) appendExpiryLog() (bool, error) {
	l := tx.s.expiryLog.Load()
	if len(tx.expiryLog) == 0 || l == nil {
		tx.expiryLog = tx.expiryLog[:0]
		return false, nil
	}
	db := tx.ldb
	defer tx.Use(db)
	tx.Use(expiryLogDB)
	a := XAddArgs{NodeEntries: l.NodeEntries}
	if l.MaxLen > 0 {
		a.Trim = StreamTrim{Strategy: TrimMaxLen, MaxLen: l.MaxLen, Approx: true}
	}
	now := []byte(strconv.FormatInt(tx.now, 10))
	// Appending may itself expire what is stored at the stream's key,
	// which records more entries: the loop appends those too.
	for len(tx.expiryLog) > 0 {
		todo := tx.expiryLog
		tx.expiryLog = nil
		for _, e := range todo {
			fields := [][]byte{[]byte("db"), []byte(strconv.Itoa(e.db)), []byte("key"), e.key}
			if e.field != nil {
				fields = append(fields, []byte("field"), e.field)
			}
			fields = append(fields, []byte("due"), []byte(strconv.FormatInt(e.due, 10)), []byte("deleted"), now)
			if _, _, err := tx.XAdd(l.Key, a, fields); err != nil {
				if errors.Is(err, ErrWrongType) || errors.Is(err, ErrStreamExhausted) || errors.Is(err, ErrStreamEntryTooLarge) {
					tx.expiryLog = nil
					return false, nil // the key is not a usable stream: the entries are dropped
				}
				return false, err
			}
		}
	}
	return true, nil
}
