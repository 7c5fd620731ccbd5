package docdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/storage"
)

// ErrWriteConflict is a transaction's write of a document that another
// open transaction wrote first, or that was changed since the
// transaction's snapshot; the wire layer answers WriteConflict.
var ErrWriteConflict = errors.New("docdb: write conflict")

// ErrTxnDone is the use of a transaction that has committed or aborted.
var ErrTxnDone = errors.New("docdb: transaction already ended")

// Txn is a multi-document transaction. Its reads see the storage snapshot
// taken when it began plus its own writes; its writes are buffered in one
// batch and committed together by Commit, across collections and
// databases, or discarded by Abort.
//
// Conflicts: the first transaction to write a document owns it until it
// ends, and another transaction's write of it fails with ErrWriteConflict
// at once; at commit every document the transaction wrote must still be as
// its snapshot had it (a write committed since by anyone, a plain write or
// the expiry engine, that left it different), and every unique key it
// added must be held by no document committed since, or the commit fails
// with ErrWriteConflict and writes nothing. A change undone before the
// commit is no conflict: the commit then equals running the transaction
// after it.
//
// Visibility: strict expiry is decided with each statement's time (the
// engine's clock when the statement runs), as for writes outside a
// transaction. A document the expiry engine deletes while the transaction
// holds a write of it makes the commit fail, so a commit never brings an
// expired document back.
//
// A Txn is used by one goroutine at a time (its session's).
type Txn struct {
	e       *Engine
	snap    *storage.Snapshot
	b       *storage.Batch
	started time.Time
	colls   map[uint64]*txnColl
	// written are the document keys the transaction wrote (owned).
	written map[string]bool
	uniques []uniqueEntry
	records [][]byte
	// created are the collections the transaction created, not in the
	// catalog until it commits (txn_ddl.go), in createdOrder.
	created      map[catalog.Namespace]*catalog.Collection
	createdOrder []catalog.Namespace
	wake         int64
	hasWake      bool
	done         bool
	// retry is the session record the commit leaves (RecordCommit).
	retry *Retryable
	// ended is closed when the transaction commits or aborts, releasing
	// the writes waiting for its documents (txn_wait.go).
	ended chan struct{}
}

// txnColl is what a transaction changed in one collection.
type txnColl struct {
	c        *catalog.Collection
	d        catalog.Delta
	multikey map[uint64]bool
}

// uniqueEntry is an entry a transaction added to a unique index.
type uniqueEntry struct {
	coll  uint64
	index *catalog.IndexMeta
	enc   []byte
	id    []byte
}

// txnOwners maps the document keys written by open transactions to their
// transaction.
type txnOwners struct {
	mu     sync.Mutex
	owners map[string]*Txn
	// onWait, when set (by tests), is called each time a write starts
	// waiting for a transaction to end.
	onWait func()
}

// BeginTxn starts a transaction on a snapshot taken now.
func (e *Engine) BeginTxn() *Txn {
	snap := e.store.NewSnapshot()
	return &Txn{
		e: e, snap: snap, b: e.store.NewSnapshotBatch(snap), started: e.opts.Now(),
		colls: map[uint64]*txnColl{}, written: map[string]bool{}, ended: make(chan struct{}),
	}
}

// Started is when the transaction began, on the engine's clock.
func (t *Txn) Started() time.Time { return t.started }

type txnKey struct{}

// WithTxn returns ctx carrying t: the engine's reads and writes given that
// context run in the transaction.
func WithTxn(ctx context.Context, t *Txn) context.Context {
	return context.WithValue(ctx, txnKey{}, t)
}

// txnOf returns the transaction ctx carries, or nil.
func txnOf(ctx context.Context) *Txn {
	t, _ := ctx.Value(txnKey{}).(*Txn)
	return t
}

// newWriterIn returns a writer on c, whose write lock the caller holds:
// in the transaction ctx carries, if any.
func (e *Engine) newWriterIn(ctx context.Context, c *catalog.Collection) *writer {
	t := txnOf(ctx)
	if t == nil {
		w := e.newWriter(c)
		w.waitTxns = waitsForTxns(ctx)
		return w
	}
	w := &writer{e: e, c: c, meta: c.Meta, b: t.b, vis: e.newVisibility(c.Meta), txn: t, atOnce: true}
	w.wb.Follow(&t.records)
	return w
}

// claim makes the transaction the owner of document key k, failing when
// another open transaction owns it.
func (t *Txn) claim(k []byte) error {
	if t.done {
		return ErrTxnDone
	}
	if t.written[string(k)] {
		return nil
	}
	o := &t.e.txns
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owners == nil {
		o.owners = map[string]*Txn{}
	}
	if other := o.owners[string(k)]; other != nil && other != t {
		return ErrWriteConflict
	}
	o.owners[string(k)] = t
	t.written[string(k)] = true
	return nil
}

// noteUnique records an entry added to a unique index, checked again at
// commit.
func (t *Txn) noteUnique(coll uint64, ix *catalog.IndexMeta, enc, id []byte) {
	t.uniques = append(t.uniques, uniqueEntry{coll: coll, index: ix, enc: bytes.Clone(enc), id: bytes.Clone(id)})
}

// absorb takes what a writer's statement staged (counters, new multikey
// indexes, change-log records, expiry wake-ups) into the transaction.
func (t *Txn) absorb(w *writer) {
	tc := t.colls[w.meta.ID]
	if tc == nil {
		tc = &txnColl{c: w.c}
		t.colls[w.meta.ID] = tc
	}
	tc.d.Docs += w.d.Docs
	tc.d.Bytes += w.d.Bytes
	for id, ic := range w.d.Idx {
		tc.d.AddIndex(id, ic.Keys, ic.Bytes)
	}
	for start, sc := range w.d.Spans {
		tc.d.AddSpan(start, sc)
	}
	for id := range w.multikey {
		if tc.multikey == nil {
			tc.multikey = map[uint64]bool{}
		}
		tc.multikey[id] = true
	}
	t.records = append(t.records, w.wb.TakeRecords()...)
	if due, ok := w.wb.TakeWake(); ok && (!t.hasWake || due < t.wake) {
		t.wake, t.hasWake = due, true
	}
	w.d = catalog.Delta{}
	w.multikey = nil
	w.docs = 0
}

// RecordCommit makes the commit of a transaction that writes leave the
// record of the session's transaction txnNumber as committed, replacing
// its record of previous (negative for none), so that TxnCommitted
// answers a retried commit wherever the commit replicated to.
func (t *Txn) RecordCommit(session []byte, txnNumber, previous int64) {
	t.retry = &Retryable{Session: session, TxnNumber: txnNumber, Previous: previous,
		Reply: func(any) (bson.Raw, error) { return committedTxn, nil }}
}

// Commit applies the transaction's writes atomically, or fails with
// ErrWriteConflict and applies nothing. The transaction ends either way.
// A transaction that wrote nothing commits no record either.
func (t *Txn) Commit() error {
	if t.done {
		return ErrTxnDone
	}
	defer t.end()
	if t.b.Empty() && len(t.created) == 0 {
		return nil
	}
	if t.retry != nil {
		if err := putRetry(t.b, t.retry, nil); err != nil {
			return err
		}
	}
	if len(t.created) > 0 {
		t.e.ddl.Lock()
		defer t.e.ddl.Unlock()
	}
	ids := make([]uint64, 0, len(t.colls))
	for id := range t.colls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := t.colls[id].c
		c.WriteMu.Lock()
		defer c.WriteMu.Unlock()
		if t.created[catalog.Namespace{DB: c.Meta.DB, Coll: c.Meta.Name}] == c {
			continue
		}
		if cur := t.e.lookupColl(c.Meta.DB, c.Meta.Name); cur != c {
			return ErrWriteConflict
		}
	}
	if err := t.validate(); err != nil {
		return err
	}
	ddlRecs, err := t.stageCreated()
	if err != nil {
		return err
	}
	var applies []func()
	var metas []func()
	for _, id := range ids {
		tc := t.colls[id]
		apply, err := tc.c.Stats.Stage(t.b, id, tc.d)
		if err != nil {
			return err
		}
		// The aggregates are read as committed, not at the snapshot: the
		// write lock is held.
		if err := catalog.StageSpans(t.e.store, t.b, id, tc.d); err != nil {
			return err
		}
		applies = append(applies, apply)
		if len(tc.multikey) > 0 {
			meta := tc.c.Meta
			idx := make([]*catalog.IndexMeta, len(meta.Indexes))
			for i, ix := range meta.Indexes {
				idx[i] = ix
				if tc.multikey[ix.ID] {
					cl := ix.Clone()
					cl.Multikey = true
					idx[i] = cl
				}
			}
			next := meta.WithIndexes(idx)
			if err := catalog.PutRecord(t.b, next); err != nil {
				return err
			}
			c := tc.c
			metas = append(metas, func() { c.Meta = next })
		}
	}
	t.e.mu.Lock()
	err = t.e.commitLogged(t.b, append(ddlRecs, t.records...))
	if err == nil {
		t.publishCreated()
		for _, f := range metas {
			f()
		}
	}
	t.e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("docdb: commit transaction: %w", err)
	}
	for _, f := range applies {
		f()
	}
	t.registerCreated()
	if t.hasWake && t.e.opts.Expiry != nil {
		t.e.opts.Expiry.Wake(time.UnixMilli(t.wake))
	}
	return nil
}

// validate checks, under the write locks of every collection written,
// that no write was committed since the snapshot to a document the
// transaction wrote, and that no document committed since holds a unique
// key the transaction added.
func (t *Txn) validate() error {
	for k := range t.written {
		key := []byte(k)
		was, werr := t.snap.Get(key)
		now, nerr := t.e.store.Get(key)
		if werr != nil && !errors.Is(werr, storage.ErrNotFound) {
			return werr
		}
		if nerr != nil && !errors.Is(nerr, storage.ErrNotFound) {
			return nerr
		}
		if (werr == nil) != (nerr == nil) || !bytes.Equal(was, now) {
			return ErrWriteConflict
		}
	}
	for _, u := range t.uniques {
		if _, err := t.b.Get(catalog.EntryKey(u.index.ID, u.enc, u.id)); err != nil {
			continue // removed again later in the transaction
		}
		prefix := catalog.EntryKey(u.index.ID, u.enc, nil)
		it, err := t.e.store.NewIter(prefix, storage.PrefixEnd(prefix))
		if err != nil {
			return err
		}
		conflict := false
		for ok := it.First(); ok && !conflict; ok = it.Next() {
			id := it.Key()[len(prefix):]
			if bytes.Equal(id, u.id) {
				continue
			}
			// Another document holds the key in the latest state: only
			// one the transaction itself removed is no conflict.
			_, inSnap := t.snap.Get(it.Key())
			_, inView := t.b.Get(it.Key())
			if inSnap != nil || !errors.Is(inView, storage.ErrNotFound) {
				conflict = true
			}
		}
		err = it.Close()
		if conflict {
			return ErrWriteConflict
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Abort discards the transaction's writes.
func (t *Txn) Abort() {
	if !t.done {
		t.end()
	}
}

// end releases the transaction's documents, batch and snapshot.
func (t *Txn) end() {
	t.done = true
	o := &t.e.txns
	o.mu.Lock()
	for k := range t.written {
		if o.owners[k] == t {
			delete(o.owners, k)
		}
	}
	o.mu.Unlock()
	close(t.ended)
	t.b.Close()
	t.snap.Close()
}

// Done reports whether the transaction has committed or aborted.
func (t *Txn) Done() bool { return t.done }
