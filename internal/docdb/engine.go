package docdb

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/storage"
)

// Engine is the document database on one storage.Store. It is safe for
// concurrent use. Its methods are in api.go.
type Engine struct {
	opts  Options
	store *storage.Store

	// mu guards the catalog cache. Catalog changes commit to storage and
	// update the cache under mu held for writing; readers take mu for
	// reading to load a collection's metadata together with a storage
	// snapshot, so the two always agree.
	mu sync.RWMutex
	// ddl serializes create, drop, dropDatabase and rename.
	ddl   sync.Mutex
	cat   *catalog.Catalog
	close sync.Once
	// srcMu guards sources, the expiry source name registered for each TTL
	// index id.
	srcMu   sync.Mutex
	sources map[uint64]string
	// tsHints remembers where time-series inserts found room last.
	tsHints bucketHints
	// pol manages the TTL policies of collection groups.
	pol *policy.Manager
	// qmem bounds the memory of queries (querymem.go).
	qmem queryMemory
	// lastTS is the last timestamp handed out for Timestamp(0, 0) fields
	// (seconds << 32 | increment).
	lastTS atomic.Uint64
	// building holds the ids of the indexes being built, from the commit
	// of their build records to the publish or the removal of their
	// entries (index_build.go). It is guarded by mu, under which those
	// commits happen, so Check tells a build in progress from one a crash
	// interrupted.
	building map[uint64]bool
	// hooks are told of every document change, in its batch (change.Hook).
	// They are set at Open and never change.
	hooks []change.Hook
	// groups holds the writeGroup of each namespace written on a replica
	// set member (group.go), by "db.coll".
	groups sync.Map
	// events is the change log; nil unless Options.ChangeLog is set.
	// stopEvents stops its background trimming.
	events     *events.Log
	stopEvents context.CancelFunc
	// tails wakes the tailable cursors of capped collections
	// (capped_tail.go).
	tails appendWaiters
	// buildBatchHook, when set (by tests, before any build), runs after
	// each intermediate batch of an index build has committed, with the
	// number of documents indexed so far.
	buildBatchHook func(docs int)
	// txns owns the documents written by open transactions (txn.go).
	txns txnOwners
}

// Open opens the document database on opts.Store, loading its catalog.
func Open(opts Options) (*Engine, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, store: opts.Store, sources: map[uint64]string{}, building: map[uint64]bool{}}
	cat, err := catalog.Load(e.store)
	if err != nil {
		return nil, fmt.Errorf("docdb: load catalog: %w", err)
	}
	e.cat = cat
	if err := e.openQueryMemory(); err != nil {
		return nil, err
	}
	n, err := recoverBuilds(e.store, cat)
	if err != nil {
		return nil, fmt.Errorf("docdb: recover index builds: %w", err)
	}
	if n > 0 {
		opts.Logger.Warn("docdb: removed the entries of index builds interrupted by a crash", "builds", n)
	}
	e.registerAllTTL()
	e.pol = policy.New(policy.Config{
		Store: e.store, Catalog: e.cat, CatalogMu: &e.mu,
		Now: opts.Now, Expiry: opts.Expiry, Logger: opts.Logger,
		NewWriter: func(c *catalog.Collection) policy.Writer { return reapWriter{e.newWriter(c)} },
	})
	e.hooks = []change.Hook{ttlWakeHook{e}, e.pol}
	if opts.ChangeLog {
		eo := opts.Events
		if eo.Now == nil {
			eo.Now = opts.Now
		}
		if eo.Logger == nil {
			eo.Logger = opts.Logger
		}
		if e.events, err = events.Open(e.store, eo); err != nil {
			e.unregisterAllSources()
			return nil, fmt.Errorf("docdb: open the change log: %w", err)
		}
		e.hooks = append(e.hooks, e.events.Hook())
	}
	if err := e.pol.Open(); err != nil {
		e.unregisterAllSources()
		return nil, fmt.Errorf("docdb: load TTL policies: %w", err)
	}
	if e.events != nil {
		ctx, cancel := context.WithCancel(context.Background())
		e.stopEvents = cancel
		go e.events.Run(ctx)
	}
	return e, nil
}

// Close stops the TTL policy worker and unregisters the Engine's expiry
// sources. It does not close the
// store, which the caller owns.
func (e *Engine) Close() error {
	e.close.Do(func() {
		if e.stopEvents != nil {
			e.stopEvents()
		}
		e.closeQueryMemory()
		e.pol.Close()
		e.unregisterAllSources()
	})
	return nil
}
