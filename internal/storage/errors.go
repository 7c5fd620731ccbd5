package storage

import "errors"

var (
	// ErrNotFound is returned by Get when the key does not exist.
	ErrNotFound = errors.New("storage: not found")
	// ErrLocked is returned by Open when another process holds the data
	// directory.
	ErrLocked = errors.New("storage: data directory is in use by another mayfly process")
	// ErrClosed is returned by operations on a closed Store.
	ErrClosed = errors.New("storage: closed")
	// ErrNotIndexed is returned when a read is attempted on a batch that was
	// not created with NewIndexedBatch.
	ErrNotIndexed = errors.New("storage: read from a batch that is not indexed")
	// ErrNotPrimary is returned by a Replicator when this member of a
	// replica set is not the one that accepts writes.
	ErrNotPrimary = errors.New("storage: this member is not the primary of its replica set")
)
