package kv

import (
	"encoding/binary"

	"github.com/mayfly/mayfly/internal/storage"
)

// Physical key layout (see doc.go). db is always the physical database id,
// which SWAPDB maps from the logical index the client selected. Versions are
// unique across the whole store, so a collection's sub-keys do not name the
// key: RENAME moves only the metadata record.
//
//	meta:    PrefixRedisMeta [db] [key]                     -> metadata record (meta.go)
//	sub:     PrefixRedisSub  [db] [version u64] [element...] -> element value
//	expiry:  PrefixExpiry    [db] [expireAt ms u64] [key]   -> empty
//	garbage: PrefixGarbage   [db] [version u64]              -> empty
//
// Reserved: PrefixExpiry with a db byte of fieldExpiryDB|db is left for the
// expiry index of hash fields; PrefixRedisMeta with db byte internalDB holds
// kv's own records (the database map of SWAPDB, the function libraries of
// FUNCTION LOAD, the stored counters and version mark of
// counters_store.go).

const (
	// NumDBs is the number of logical databases (Redis's default 16).
	NumDBs = 16
	// internalDB is the db byte of kv's own records under PrefixRedisMeta.
	internalDB byte = 0xff
	// fieldExpiryDB is or-ed into the db byte of hash-field expiry entries.
	fieldExpiryDB byte = 0x80
)

func metaPrefix(db byte) []byte { return []byte{storage.PrefixRedisMeta, db} }

func metaKey(dst []byte, db byte, key []byte) []byte {
	dst = append(dst[:0], storage.PrefixRedisMeta, db)
	return append(dst, key...)
}

func expiryPrefix(db byte) []byte { return []byte{storage.PrefixExpiry, db} }

func expiryKey(dst []byte, db byte, at int64, key []byte) []byte {
	dst = append(dst[:0], storage.PrefixExpiry, db)
	dst = binary.BigEndian.AppendUint64(dst, uint64(at))
	return append(dst, key...)
}

// decodeExpiryKey splits an expiry index key (with prefix and db byte).
func decodeExpiryKey(k []byte) (at int64, key []byte, ok bool) {
	if len(k) < 10 {
		return 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(k[2:10])), k[10:], true
}

// subPrefixLen is the length of a subPrefix.
const subPrefixLen = 2 + 8

// elemVersion returns the db and version of a key under a subPrefix, with
// ok false for any other key.
func elemVersion(key []byte) (db byte, version uint64, ok bool) {
	if len(key) < subPrefixLen || key[0] != storage.PrefixRedisSub {
		return 0, 0, false
	}
	return key[1], binary.BigEndian.Uint64(key[2:subPrefixLen]), true
}

// subPrefix returns the prefix of every element sub-key of one version of
// a collection; the collection types append their element encodings to it.
func subPrefix(db byte, version uint64) []byte {
	dst := make([]byte, 0, 2+8+16)
	dst = append(dst, storage.PrefixRedisSub, db)
	return binary.BigEndian.AppendUint64(dst, version)
}

func garbageKey(db byte, version uint64) []byte {
	dst := make([]byte, 0, 2+8)
	dst = append(dst, storage.PrefixGarbage, db)
	return binary.BigEndian.AppendUint64(dst, version)
}

// decodeGarbageKey returns the db and version of a garbage record.
func decodeGarbageKey(k []byte) (db byte, version uint64, ok bool) {
	if len(k) != 2+8 {
		return 0, 0, false
	}
	return k[1], binary.BigEndian.Uint64(k[2:]), true
}
