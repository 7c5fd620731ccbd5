package kv

import (
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// functionsKey is the internal record holding the Redis function
// libraries (FUNCTION LOAD), as one opaque payload the caller encodes. It
// is outside every database, so FLUSHALL and FLUSHDB leave it, as Redis
// keeps its functions across them.
func functionsKey() []byte {
	return []byte{storage.PrefixRedisMeta, internalDB, 'f', 'u', 'n', 'c', 't', 'i', 'o', 'n', 's'}
}

// Functions returns the stored function libraries payload, nil when none
// is stored.
func (tx *Tx) Functions() ([]byte, error) {
	v, err := tx.reader().Get(functionsKey())
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kv: read functions: %w", err)
	}
	return v, nil
}

// SetFunctions stores the function libraries payload with the Tx's
// writes; an empty payload deletes the record.
func (tx *Tx) SetFunctions(payload []byte) error {
	b := tx.batch()
	var err error
	if len(payload) == 0 {
		err = b.Delete(functionsKey())
	} else {
		err = b.Set(functionsKey(), payload)
	}
	if err != nil {
		return fmt.Errorf("kv: write functions: %w", err)
	}
	return nil
}
