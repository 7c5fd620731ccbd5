// Package storage is mayfly's only door to Pebble. Everything the server
// keeps lives in one Pebble database per data directory, split into
// keyspaces by a one-byte prefix (keyspaces.go).
//
// # Design
//
// A Store is opened on a data directory and owns it through a lock file, so
// two servers never share one directory. Writes go through a Batch, which is
// applied atomically: an item's data and its expiry index entry are always
// written in one batch, so a crash never leaves one without the other.
//
// Durability is a setting (Durability). DurabilitySync fsyncs the write-ahead
// log before Commit returns. DurabilityGroup, the default, returns once the
// batch is appended to the log's buffer and fsyncs the log at least every
// GroupSyncInterval (100 ms). Pebble keeps unsynced log records in its own
// buffer until they are written out, so a crash of the process, like a
// power failure, can lose the writes of roughly the last interval, more on
// an overloaded machine.
//
// Reads go through a Reader: the Store itself (the latest state), a Snapshot
// (a fixed point in time) or an indexed Batch (the batch's own writes over the
// latest state). Values returned by Get are copies the caller owns; the key
// and value slices of an Iter are valid only until the iterator moves.
//
// Pebble has no compaction filter, so expiry is explicit deletes and range
// deletes, and erasing deleted bytes from disk is explicit Flush and Compact
// of the affected ranges.
//
// # Testing
//
// Options.InMemory runs the store on Pebble's in-memory filesystem, for unit
// tests and testing/synctest bubbles that must not touch the disk.
package storage
