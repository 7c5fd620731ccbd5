package catalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mayfly/mayfly/internal/storage"
)

// Counters keep a collection's document count and byte sizes for dbStats,
// collStats and listDatabases. They change only under the collection's write
// lock, and the new values are written into the same storage batch as the
// documents they count, so they survive restarts exactly.
type Counters struct {
	mu    sync.Mutex
	docs  int64
	bytes int64
	idx   map[uint64]*IndexCounter
	// gen counts the changes applied, so that a reader can tell that no
	// write committed between two points (Generation).
	gen uint64
}

// Generation returns the number of changes applied so far. Every write of
// the collection's documents applies one after its batch commits, under
// the collection's write lock, so a caller holding that lock who reads the
// same generation as before a read of the collection knows that no write
// committed since that read began.
func (c *Counters) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// IndexCounter counts one index's entries and their bytes.
type IndexCounter struct {
	Keys  int64
	Bytes int64
}

// Delta is a pending change to counters, applied after its batch commits.
type Delta struct {
	Docs  int64
	Bytes int64
	Idx   map[uint64]IndexCounter
	// Dropped lists indexes whose counters go away.
	Dropped []uint64
	// Spans changes the span aggregates (spans.go) by span start;
	// StageSpans writes them.
	Spans map[int64]SpanCount
}

func (d *Delta) AddIndex(id uint64, keys, bytes int64) {
	if d.Idx == nil {
		d.Idx = map[uint64]IndexCounter{}
	}
	c := d.Idx[id]
	c.Keys += keys
	c.Bytes += bytes
	d.Idx[id] = c
}

// NewCounters returns the counters of an empty collection.
func NewCounters() *Counters { return &Counters{idx: map[uint64]*IndexCounter{}} }

// loadCounters reads the stored counters of collection id.
func loadCounters(st storage.Reader, id uint64) (*Counters, error) {
	c := NewCounters()
	v, err := st.Get(StatsKey(id))
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
		c.idx[binary.BigEndian.Uint64(p)] = &IndexCounter{
			Keys:  int64(binary.BigEndian.Uint64(p[8:])),
			Bytes: int64(binary.BigEndian.Uint64(p[16:])),
		}
	}
	return c, nil
}

// Stage writes into b the counters as they will be after d, and returns a
// function that applies d in memory once b has committed. The caller holds
// the collection's write lock, so nothing else changes the counters between
// stage and apply.
func (c *Counters) Stage(b *storage.Batch, collID uint64, d Delta) (apply func(), err error) {
	c.mu.Lock()
	docs, bytes := c.docs+d.Docs, c.bytes+d.Bytes
	v := make([]byte, 0, 16+24*(len(c.idx)+len(d.Idx)))
	v = binary.BigEndian.AppendUint64(v, uint64(docs))
	v = binary.BigEndian.AppendUint64(v, uint64(bytes))
	appendIndex := func(id uint64, ic IndexCounter) {
		if slices.Contains(d.Dropped, id) {
			return
		}
		if dc, ok := d.Idx[id]; ok {
			ic.Keys += dc.Keys
			ic.Bytes += dc.Bytes
		}
		v = binary.BigEndian.AppendUint64(v, id)
		v = binary.BigEndian.AppendUint64(v, uint64(ic.Keys))
		v = binary.BigEndian.AppendUint64(v, uint64(ic.Bytes))
	}
	for id, ic := range c.idx {
		appendIndex(id, *ic)
	}
	for id := range d.Idx {
		if _, ok := c.idx[id]; !ok {
			appendIndex(id, IndexCounter{})
		}
	}
	c.mu.Unlock()
	if err := b.Set(StatsKey(collID), v); err != nil {
		return nil, err
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.gen++
		c.docs, c.bytes = docs, bytes
		for id, dc := range d.Idx {
			ic := c.idx[id]
			if ic == nil {
				ic = &IndexCounter{}
				c.idx[id] = ic
			}
			ic.Keys += dc.Keys
			ic.Bytes += dc.Bytes
		}
		for _, id := range d.Dropped {
			delete(c.idx, id)
		}
	}, nil
}

// Snapshot returns the current values.
func (c *Counters) Snapshot() (docs, bytes int64, idx map[uint64]IndexCounter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx = make(map[uint64]IndexCounter, len(c.idx))
	for id, ic := range c.idx {
		idx[id] = *ic
	}
	return c.docs, c.bytes, idx
}
