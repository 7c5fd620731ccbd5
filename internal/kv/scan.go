package kv

import (
	"bytes"
	"sync"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/storage"
)

// SCAN's cursor is an integer, but our keys are ordered byte strings, so a
// cursor names a position kept here: the key to resume after, in one
// physical database. The table is bounded; the oldest positions are
// forgotten first, and an unknown cursor restarts the walk from the
// beginning (SCAN allows a key to be returned more than once).
const maxScanCursors = 1 << 16

type scanPos struct {
	pdb   byte
	after []byte
}

type scanCursors struct {
	mu    sync.Mutex
	next  uint64
	pos   map[uint64]scanPos
	order []uint64
}

func (c *scanCursors) init() { c.pos = make(map[uint64]scanPos) }

func (c *scanCursors) put(p scanPos) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	if c.next == 0 {
		c.next = 1
	}
	id := c.next
	c.pos[id] = p
	c.order = append(c.order, id)
	for len(c.order) > maxScanCursors {
		delete(c.pos, c.order[0])
		c.order = c.order[1:]
	}
	return id
}

func (c *scanCursors) get(id uint64) (scanPos, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pos[id]
	return p, ok
}

// ScanOptions are SCAN's MATCH, COUNT and TYPE.
type ScanOptions struct {
	Match []byte // nil for all keys
	Count int    // keys to visit; 0 means 10
	Type  Type   // TypeNone for all types
}

// Scan returns a page of the live keys of the current database after the
// position cursor names (0 to start) and the cursor of the next page, 0
// when the walk is complete.
func (tx *Tx) Scan(cursor uint64, o ScanOptions) (uint64, [][]byte, error) {
	count := o.Count
	if count <= 0 {
		count = 10
	}
	lo := metaPrefix(tx.pdb)
	hi := storage.PrefixEnd(lo)
	start := lo
	if cursor != 0 {
		if p, ok := tx.s.scans.get(cursor); ok && p.pdb == tx.pdb {
			start = append(append([]byte(nil), lo...), p.after...)
			start = append(start, 0) // the smallest key after p.after
		}
	}
	if o.Match != nil {
		if pre := glob.LiteralPrefix(o.Match); len(pre) > 0 {
			plo := append(append([]byte(nil), lo...), pre...)
			if bytes.Compare(plo, start) > 0 {
				start = plo
			}
			hi = storage.PrefixEnd(plo)
		}
	}
	it, err := tx.reader().NewIter(start, hi)
	if err != nil {
		return 0, nil, err
	}
	var out [][]byte
	var last []byte
	visited := 0
	more := false
	for ok := it.First(); ok; ok = it.Next() {
		if visited == count {
			more = true
			break
		}
		visited++
		if tx.stopping(visited) {
			it.Close()
			return 0, nil, ErrStopped
		}
		k := it.Key()[2:]
		last = append(last[:0], k...)
		m, err := decodeMeta(it.Value())
		if err != nil {
			continue
		}
		if gone, err := tx.gone(tx.pdb, m); err != nil {
			it.Close()
			return 0, nil, err
		} else if gone {
			continue
		}
		if o.Type != TypeNone && m.Type != o.Type {
			continue
		}
		if o.Match != nil && !glob.Match(o.Match, k, false) {
			continue
		}
		out = append(out, append([]byte(nil), k...))
	}
	if err := it.Close(); err != nil {
		return 0, nil, err
	}
	if !more {
		return 0, out, nil
	}
	return tx.s.scans.put(scanPos{pdb: tx.pdb, after: last}), out, nil
}
