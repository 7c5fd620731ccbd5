package docdb

import (
	"context"
	"sync"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// Group commit. The single-statement writes of one namespace outside a
// transaction (insertOne, updateOne, deleteOne, findAndModify; not
// updateMany or deleteMany, whose writers bound their batches) run as a
// group, so that concurrent writers share one commit, and on a member of a
// replica set one raft round trip, while the collection's write lock is
// still held across the commit (every later write's uniqueness checks and
// reads see storage as the commit leaves it):
//
//   - Each write queues itself on the namespace's writeGroup. When no
//     group runs, it leads one: it takes the queued writes, locks the
//     collection, runs every one of them in turn into one writer (each
//     sees the writes before it, through the writer's batch), commits the
//     batch once and unlocks. The writes queued meanwhile wait; the leader
//     hands the next group to the first of them.
//   - A write that fails with its own error (a duplicate key, a failed
//     validation) is reported to its client and the others go on, as in
//     an ordered batch of one statement each. An internal failure of a
//     write that has already written into the batch fails the whole
//     group, which commits nothing.
//   - Every write of the group is acknowledged only once the batch is
//     committed and applied to this member's store, and all get the
//     commit's error when it fails.
//
// A write alone in its namespace is a group of one and commits at once.
// With the change log on, a group's records are one log entry.

// groupedWrite is one write waiting in a writeGroup.
type groupedWrite struct {
	// create says whether the write creates the collection when it does
	// not exist (an insert, an upsert).
	create bool
	// waitTxns is the writer's waitTxns for this write (txn_wait.go): a
	// write that reaches a document an open transaction owns fails with
	// txnBlockedError before touching the batch, and its caller waits.
	waitTxns bool
	// run does the write into w, or, with w nil, answers it for a missing
	// collection. It keeps its result itself and returns only an internal
	// failure.
	run func(w *writer) error
	// err is the write's failure: an internal one of its own, or its
	// group's (set by the leader).
	err error
	// wake is signalled once by a leader: when the write is done, or when
	// it is to lead the next group (lead set).
	wake chan struct{}
	lead bool
}

// writeGroup queues the grouped writes of one namespace.
type writeGroup struct {
	mu      sync.Mutex
	queue   []*groupedWrite
	running bool
}

// groupWrites reports whether writes in ctx go through a writeGroup.
func (e *Engine) groupWrites(ctx context.Context) bool {
	return txnOf(ctx) == nil
}

// runGrouped runs gw in the group of db.coll and returns once its group is
// committed (or failed): its result is what gw.run kept, valid only when
// the error is nil.
func (e *Engine) runGrouped(db, coll string, gw *groupedWrite) error {
	gw.wake = make(chan struct{}, 1)
	g := e.writeGroupOf(db, coll)
	g.mu.Lock()
	g.queue = append(g.queue, gw)
	if g.running {
		g.mu.Unlock()
		<-gw.wake
		if !gw.lead {
			return gw.err
		}
		gw.lead = false
		g.mu.Lock()
	} else {
		g.running = true
	}
	ws := g.queue
	g.queue = nil
	g.mu.Unlock()

	if err := e.commitGroup(db, coll, ws); err != nil {
		for _, w := range ws {
			w.err = err
		}
	}

	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		next.lead = true
		next.wake <- struct{}{}
	} else {
		g.running = false
	}
	g.mu.Unlock()
	for _, w := range ws {
		if w != gw {
			w.wake <- struct{}{}
		}
	}
	return gw.err
}

// writeGroupOf returns the writeGroup of db.coll.
func (e *Engine) writeGroupOf(db, coll string) *writeGroup {
	ns := db + "." + coll
	if g, ok := e.groups.Load(ns); ok {
		return g.(*writeGroup)
	}
	g, _ := e.groups.LoadOrStore(ns, &writeGroup{})
	return g.(*writeGroup)
}

// commitGroup runs ws into one batch of db.coll under its write lock and
// commits it; its error is the whole group's, each write's own is in its
// err. A capped collection, whose bound is kept batch by batch, commits
// each write by itself.
func (e *Engine) commitGroup(db, coll string, ws []*groupedWrite) error {
	create := false
	for _, w := range ws {
		create = create || w.create
	}
	c, err := e.lockForWrite(db, coll, create)
	if err != nil {
		return err
	}
	if c == nil {
		for _, w := range ws {
			w.err = w.run(nil)
		}
		return nil
	}
	defer c.WriteMu.Unlock()
	if _, capped := c.Meta.Capped(); capped {
		for _, gw := range ws {
			gw.err = e.commitOne(c, gw)
		}
		return nil
	}
	w := e.newWriter(c)
	defer w.close()
	w.atOnce = true
	for _, gw := range ws {
		before := w.b.Count()
		w.waitTxns = gw.waitTxns
		if err := gw.run(w); err != nil {
			if w.b.Count() != before {
				return err
			}
			gw.err = err
		}
	}
	return w.finish()
}

// commitOne runs one write of a group in a writer of its own and commits
// it; c is locked.
func (e *Engine) commitOne(c *catalog.Collection, gw *groupedWrite) error {
	w := e.newWriter(c)
	defer w.close()
	w.atOnce = true
	w.waitTxns = gw.waitTxns
	if err := gw.run(w); err != nil {
		return err
	}
	return w.finish()
}
