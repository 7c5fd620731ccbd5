package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/mayfly/mayfly/internal/invariants"
)

// Store is one Pebble database on one data directory. It is safe for
// concurrent use.
type Store struct {
	db       *pebble.DB
	opts     Options
	lock     *os.File
	dirty    atomic.Bool // writes committed without fsync since the last sync
	closed   atomic.Bool
	stopSync chan struct{}
	syncDone sync.WaitGroup
	writeOpt *pebble.WriteOptions
	// openIters counts iterators not yet closed, under invariants only:
	// closing a store with open iterators is a bug that Pebble reports late.
	openIters atomic.Int64
	// purge tracks deleted-but-not-purged spans (purge.go); purgeMu lets one
	// purge cycle run at a time.
	purge   *purgeTracker
	purgeMu sync.Mutex

	compactions *compactionPriority // nil unless Options.LowPriorityCompactions

	// replicator, when set, receives every committed batch (replicate.go).
	replicator atomic.Pointer[Replicator]
}

// Open opens (creating if needed) the store in opts.Dir. It fails with
// ErrLocked when another process holds the directory.
func Open(opts Options) (*Store, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Store{opts: opts, stopSync: make(chan struct{})}
	popts := &pebble.Options{
		Logger: pebbleLogger{opts.Logger},
		// No WAL recycling, so that retired logs are removed (purge_wal.go).
		Cleaner: noRecycleCleaner{},
		FS:      vfs.Default,
	}
	if opts.LowPriorityCompactions {
		s.compactions = &compactionPriority{logger: opts.Logger}
		popts.EventListener = &pebble.EventListener{CompactionBegin: s.compactions.begin}
	}
	// Bloom filters let a point read (every write reads a key's previous
	// state first) skip the sstables that do not hold the key; L1 and below
	// inherit L0's policy.
	popts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	popts.Experimental.SpanPolicyFunc = keyspaceSpans
	if opts.InMemory {
		popts.FS = vfs.NewMem()
		if err := popts.FS.MkdirAll(opts.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("storage: create data directory: %w", err)
		}
	} else {
		if err := os.MkdirAll(opts.Dir, 0o750); err != nil {
			return nil, fmt.Errorf("storage: create data directory: %w", err)
		}
		lock, err := lockDir(opts.Dir)
		if err != nil {
			return nil, err
		}
		s.lock = lock
	}
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref()
	popts.Cache = cache
	db, err := pebble.Open(opts.Dir, popts)
	if err != nil {
		s.unlock()
		return nil, fmt.Errorf("storage: open %s: %w", opts.Dir, err)
	}
	s.db = db
	s.purge = newPurgeTracker(opts.Now, opts.PurgeAfter, popts.FS, opts.Dir)
	if err := s.purge.load(); err != nil {
		db.Close()
		s.unlock()
		return nil, err
	}
	if opts.Durability == DurabilitySync {
		s.writeOpt = pebble.Sync
	} else {
		s.writeOpt = pebble.NoSync
		s.syncDone.Add(1)
		go s.groupSync()
	}
	return s, nil
}

// lockDir takes an exclusive advisory lock on dir/mayfly.lock.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "mayfly.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, fmt.Errorf("storage: open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("storage: lock %s: %w", path, err)
	}
	return f, nil
}

func (s *Store) unlock() {
	if s.lock != nil {
		s.lock.Close() // closing the descriptor releases the flock
		s.lock = nil
	}
}

// groupSync fsyncs the log every GroupSyncInterval while there are unsynced
// writes.
func (s *Store) groupSync() {
	defer s.syncDone.Done()
	t := time.NewTicker(s.opts.GroupSyncInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopSync:
			return
		case <-t.C:
			if s.dirty.Swap(false) {
				if err := s.SyncWAL(); err != nil && !errors.Is(err, ErrClosed) {
					s.opts.Logger.Error("storage: group fsync of the write-ahead log", "err", err)
				}
			}
		}
	}
}

// SyncWAL fsyncs the write-ahead log, making every committed write durable.
func (s *Store) SyncWAL() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.db.LogData(nil, pebble.Sync); err != nil {
		return fmt.Errorf("storage: sync log: %w", err)
	}
	return nil
}

// Close syncs the log and closes the store. It is safe to call more than once.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if n := s.openIters.Load(); invariants.Enabled && n != 0 {
		panic(fmt.Sprintf("storage: Close with %d iterators still open", n))
	}
	close(s.stopSync)
	s.syncDone.Wait()
	var errs []error
	if err := s.db.LogData(nil, pebble.Sync); err != nil {
		errs = append(errs, fmt.Errorf("storage: final sync: %w", err))
	}
	if err := s.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("storage: close: %w", err))
	}
	s.unlock()
	return errors.Join(errs...)
}

// Dir returns the data directory.
func (s *Store) Dir() string { return s.opts.Dir }

// Durability returns the store's durability mode.
func (s *Store) Durability() Durability { return s.opts.Durability }

// Get returns a copy of the value stored under key, or ErrNotFound.
func (s *Store) Get(key []byte) ([]byte, error) {
	return get(s.db, key)
}

// pebbleReader is what pebble.DB, pebble.Snapshot and pebble.Batch have in
// common.
type pebbleReader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func get(g pebbleReader, key []byte) ([]byte, error) {
	v, closer, err := g.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("storage: get: %w", err)
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, nil
}

// NewIter returns an iterator over the keys in [lower, upper); a nil bound
// means unbounded on that side.
func (s *Store) NewIter(lower, upper []byte) (*Iter, error) {
	return newIter(s, s.db, lower, upper)
}

// NewSnapshot returns a consistent read-only view of the store as of now.
// The caller must Close it.
func (s *Store) NewSnapshot() *Snapshot {
	return &Snapshot{snap: s.db.NewSnapshot(), store: s}
}

// NewBatch returns a write-only batch.
func (s *Store) NewBatch() *Batch {
	return &Batch{b: s.db.NewBatch(), s: s}
}

// NewIndexedBatch returns a batch whose Get and NewIter see its own writes
// over the latest state of the store.
func (s *Store) NewIndexedBatch() *Batch {
	return &Batch{b: s.db.NewIndexedBatch(), s: s, indexed: true}
}

// Flush writes the memtable to an sstable.
func (s *Store) Flush() error {
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("storage: flush: %w", err)
	}
	return nil
}

// Compact compacts the key range [start, end) down to the bottom level, so
// that deleted data in it is erased from the sstables.
func (s *Store) Compact(ctx context.Context, start, end []byte) error {
	if err := s.db.Compact(ctx, start, end, true); err != nil {
		return fmt.Errorf("storage: compact: %w", err)
	}
	return nil
}

// Snapshot is a consistent read-only view of the store.
type Snapshot struct {
	snap  *pebble.Snapshot
	store *Store
}

// Get returns a copy of the value stored under key, or ErrNotFound.
func (s *Snapshot) Get(key []byte) ([]byte, error) { return get(s.snap, key) }

// NewIter returns an iterator over [lower, upper) in the snapshot.
func (s *Snapshot) NewIter(lower, upper []byte) (*Iter, error) {
	return newIter(s.store, s.snap, lower, upper)
}

// Close releases the snapshot.
func (s *Snapshot) Close() error { return s.snap.Close() }

// Reader is what Store, Snapshot and an indexed Batch have in common.
type Reader interface {
	Get(key []byte) ([]byte, error)
	NewIter(lower, upper []byte) (*Iter, error)
}

var (
	_ Reader = (*Store)(nil)
	_ Reader = (*Snapshot)(nil)
	_ Reader = (*Batch)(nil)
)

// pebbleLogger sends Pebble's log lines to slog.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	os.Exit(1)
}

// keyspaceSpans makes flushes and compactions end an sstable at each
// keyspace's end (the first byte of a key names its keyspace), so that no
// sstable holds keys of two keyspaces. Keyspaces written side by side in
// the same batches (documents and the change log, documents and their
// index entries) then keep their own files: a keyspace written in key
// order, like documents under increasing _ids, gets files that do not
// overlap the older ones, which compactions move down without rewriting
// and point reads of new keys skip by their bounds.
//
// The events keyspace is split further by its second byte, which names one
// of its parts (the change log's records, their content, the references
// of inserts), each written in an order of its own.
func keyspaceSpans(start []byte) (pebble.SpanPolicy, []byte, error) {
	if len(start) == 0 || start[0] == 0xff {
		return pebble.SpanPolicy{}, nil, nil
	}
	if start[0] == PrefixEvents && len(start) > 1 && start[1] < 0xff {
		return pebble.SpanPolicy{}, []byte{start[0], start[1] + 1}, nil
	}
	return pebble.SpanPolicy{}, []byte{start[0] + 1}, nil
}
