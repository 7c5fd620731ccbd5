package docdb

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// clusterTimeKey holds the bound of cluster times: every cluster time
// handed out is below it, so that times handed out after a restart (which
// start at the bound) are above every time handed out before.
var clusterTimeKey = []byte{storage.PrefixClusterTime}

// ClusterTimeBound returns the stored bound of cluster times, in seconds
// (0 when none was stored).
func (e *Engine) ClusterTimeBound() (uint32, error) {
	v, err := e.store.Get(clusterTimeKey)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("docdb: cluster time bound: %w", err)
	}
	if len(v) != 4 {
		return 0, fmt.Errorf("docdb: malformed cluster time bound %x", v)
	}
	return binary.BigEndian.Uint32(v), nil
}

// SetClusterTimeBound stores the bound of cluster times, durably before it
// returns.
func (e *Engine) SetClusterTimeBound(secs uint32) error {
	b := e.store.NewBatch()
	defer b.Close()
	if err := b.Set(clusterTimeKey, binary.BigEndian.AppendUint32(nil, secs)); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("docdb: cluster time bound: %w", err)
	}
	return e.store.SyncWAL()
}
