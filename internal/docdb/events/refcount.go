package events

import (
	"fmt"
	"sync/atomic"
)

// refCount counts the committed insert records that refer to their stored
// document by the Unix second of their sequence numbers, so that the log
// knows how many of them an index of inserts would have to hold: those
// whose content may still be kept. Past the index's keepAt the hook keeps an
// inserted document as content at once instead (Hook.DocumentChanged).
// Its seconds are changed under the log's mu; the total is read without.
type refCount struct {
	bySecond map[uint32]int
	total    atomic.Int64
}

// add counts n records of the batch whose first sequence number is first.
func (c *refCount) add(first uint64, n int) {
	if n == 0 {
		return
	}
	if c.bySecond == nil {
		c.bySecond = map[uint32]int{}
	}
	c.bySecond[uint32(first>>32)] += n
	c.total.Add(int64(n))
}

// forget drops the counts of the seconds before the content id cut.
func (c *refCount) forget(cut uint64) {
	s := uint32(cut >> 32)
	for sec, n := range c.bySecond {
		if sec < s {
			delete(c.bySecond, sec)
			c.total.Add(-int64(n))
		}
	}
}

// full reports whether at least limit records are counted.
func (c *refCount) full(limit int) bool { return c.total.Load() >= int64(limit) }

// countRefs counts again, from the records, the inserts that refer to
// their stored document and whose content may still be kept, for a log
// opened on records it did not count (at Open, and on a store another
// process wrote: Refresh).
func (l *Log) countRefs() error {
	cut := l.contentCut()
	after := uint64(0)
	if cut > 0 {
		after = cut - 1
	}
	var c refCount
	err := l.eachInsert(after, toEnd, func(_ uint64, _ []byte, x uint64) bool {
		c.add(x, 1)
		return true
	})
	if err != nil {
		return fmt.Errorf("events: count inserts: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refs.bySecond = c.bySecond
	l.refs.total.Store(c.total.Load())
	return nil
}
