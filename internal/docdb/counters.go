package docdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mayfly/mayfly/internal/storage"
)

// counters keep a collection's document count and byte sizes for dbStats,
// collStats and listDatabases. They change only under the collection's write
// lock, and the new values are written into the same storage batch as the
// documents they count, so they survive restarts exactly.
type counters struct {
	mu    sync.Mutex
	docs  int64
	bytes int64
	idx   map[uint64]*indexCounter
}

// indexCounter counts one index's entries and their bytes.
type indexCounter struct {
	keys  int64
	bytes int64
}

// delta is a pending change to counters, applied after its batch commits.
type delta struct {
	docs  int64
	bytes int64
	idx   map[uint64]indexCounter
	// dropped lists indexes whose counters go away.
	dropped []uint64
}

func (d *delta) addIndex(id uint64, keys, bytes int64) {
	if d.idx == nil {
		d.idx = map[uint64]indexCounter{}
	}
	c := d.idx[id]
	c.keys += keys
	c.bytes += bytes
	d.idx[id] = c
}

func newCounters() *counters { return &counters{idx: map[uint64]*indexCounter{}} }

// loadCounters reads the stored counters of collection id.
func loadCounters(st storage.Reader, id uint64) (*counters, error) {
	c := newCounters()
	v, err := st.Get(statsKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if len(v) < 16 || (len(v)-16)%24 != 0 {
		return nil, fmt.Errorf("docdb: corrupt counters of collection %d", id)
	}
	c.docs = int64(binary.BigEndian.Uint64(v))
	c.bytes = int64(binary.BigEndian.Uint64(v[8:]))
	for p := v[16:]; len(p) > 0; p = p[24:] {
		c.idx[binary.BigEndian.Uint64(p)] = &indexCounter{
			keys:  int64(binary.BigEndian.Uint64(p[8:])),
			bytes: int64(binary.BigEndian.Uint64(p[16:])),
		}
	}
	return c, nil
}

// stage writes into b the counters as they will be after d, and returns a
// function that applies d in memory once b has committed. The caller holds
// the collection's write lock, so nothing else changes the counters between
// stage and apply.
func (c *counters) stage(b *storage.Batch, collID uint64, d delta) (apply func(), err error) {
	c.mu.Lock()
	docs, bytes := c.docs+d.docs, c.bytes+d.bytes
	v := make([]byte, 0, 16+24*(len(c.idx)+len(d.idx)))
	v = binary.BigEndian.AppendUint64(v, uint64(docs))
	v = binary.BigEndian.AppendUint64(v, uint64(bytes))
	appendIndex := func(id uint64, ic indexCounter) {
		if slices.Contains(d.dropped, id) {
			return
		}
		if dc, ok := d.idx[id]; ok {
			ic.keys += dc.keys
			ic.bytes += dc.bytes
		}
		v = binary.BigEndian.AppendUint64(v, id)
		v = binary.BigEndian.AppendUint64(v, uint64(ic.keys))
		v = binary.BigEndian.AppendUint64(v, uint64(ic.bytes))
	}
	for id, ic := range c.idx {
		appendIndex(id, *ic)
	}
	for id := range d.idx {
		if _, ok := c.idx[id]; !ok {
			appendIndex(id, indexCounter{})
		}
	}
	c.mu.Unlock()
	if err := b.Set(statsKey(collID), v); err != nil {
		return nil, err
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.docs, c.bytes = docs, bytes
		for id, dc := range d.idx {
			ic := c.idx[id]
			if ic == nil {
				ic = &indexCounter{}
				c.idx[id] = ic
			}
			ic.keys += dc.keys
			ic.bytes += dc.bytes
		}
		for _, id := range d.dropped {
			delete(c.idx, id)
		}
	}, nil
}

// snapshot returns the current values.
func (c *counters) snapshot() (docs, bytes int64, idx map[uint64]indexCounter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx = make(map[uint64]indexCounter, len(c.idx))
	for id, ic := range c.idx {
		idx[id] = *ic
	}
	return c.docs, c.bytes, idx
}
