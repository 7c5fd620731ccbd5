package storage

// Keyspace prefixes: the first byte of every key says which keyspace it
// belongs to. They are registered here, in one place, so that two packages
// never pick the same byte. Values are part of the on-disk format: never
// renumber them.
const (
	// PrefixMeta holds the store's own metadata (format version).
	PrefixMeta byte = 0x01
	// PrefixCatalog holds the document catalog: databases, collections,
	// indexes, TTL policies.
	PrefixCatalog byte = 0x02
	// PrefixDocument holds documents, keyed by collection id and encoded _id.
	PrefixDocument byte = 0x03
	// PrefixIndex holds secondary index entries, keyed by index id, encoded
	// values and _id.
	PrefixIndex byte = 0x04
	// PrefixRedisMeta holds one metadata record per Redis key.
	PrefixRedisMeta byte = 0x05
	// PrefixRedisSub holds the elements of Redis collections, one sub-key per
	// element, under the key's version.
	PrefixRedisSub byte = 0x06
	// PrefixExpiry holds Redis expiry indexes ordered by expire-at time.
	PrefixExpiry byte = 0x07
	// PrefixEvents holds durable events: the MongoDB change log.
	PrefixEvents byte = 0x08
	// PrefixOperation holds long-running operations (policy changes).
	PrefixOperation byte = 0x09
	// PrefixGarbage holds references to old versions of Redis collections
	// whose elements are collected in the background.
	PrefixGarbage byte = 0x0a
	// PrefixRetry holds the replies of retryable writes, keyed by session
	// and transaction number, so that a retry is answered without running
	// the write again.
	PrefixRetry byte = 0x0b
	// PrefixClusterTime holds the bound of the MongoDB cluster times
	// handed out, which keeps them increasing across restarts.
	PrefixClusterTime byte = 0x0c
	// PrefixRaftLog holds a replica set member's raft log entries, by
	// index, in the member's separate raft store (never in the data store).
	PrefixRaftLog byte = 0x0d
	// PrefixRaftStable holds raft's stable values (current term, vote) in
	// the same raft store.
	PrefixRaftStable byte = 0x0e
)

// PrefixNames names every registered prefix, for metrics and debugging.
var PrefixNames = map[byte]string{
	PrefixMeta:        "meta",
	PrefixCatalog:     "catalog",
	PrefixDocument:    "document",
	PrefixIndex:       "index",
	PrefixRedisMeta:   "redis_meta",
	PrefixRedisSub:    "redis_sub",
	PrefixExpiry:      "expiry",
	PrefixEvents:      "events",
	PrefixOperation:   "operation",
	PrefixGarbage:     "garbage",
	PrefixRetry:       "retry",
	PrefixClusterTime: "cluster_time",
	PrefixRaftLog:     "raft_log",
	PrefixRaftStable:  "raft_stable",
}

// PrefixEnd returns the smallest key greater than every key that starts with
// prefix, for use as an exclusive upper bound. It returns nil when no such
// key exists (prefix is empty or all 0xff), meaning "no upper bound".
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// Key returns a new key made of the prefix byte followed by the parts.
func Key(prefix byte, parts ...[]byte) []byte {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 1, n)
	k[0] = prefix
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}
