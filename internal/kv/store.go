package kv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// Waker is the part of the expiry engine kv needs: a cheap call saying an
// item is now due at due, possibly earlier than the engine thought.
type Waker interface {
	Wake(due time.Time)
}

// Options configure a Store.
type Options struct {
	// Store is the storage the data lives in. Required.
	Store *storage.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Waker is told when an expiry earlier than before is written; nil
	// means no one is told (tests reap with expiry.Drain).
	Waker Waker
	// Logger receives background errors; nil means slog.Default().
	Logger *slog.Logger
	// MaxStringSize is the largest string value in bytes (Redis's
	// proto-max-bulk-len for SETRANGE and APPEND); zero means 512 MiB.
	MaxStringSize int64
	// MetaCacheSize bounds the memory of the metadata cache (metacache.go)
	// in bytes; zero means 32 MiB, negative disables the cache.
	MetaCacheSize int64
}

// EnsureDefaults fills in the zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxStringSize == 0 {
		o.MaxStringSize = 512 << 20
	}
	if o.MetaCacheSize == 0 {
		o.MetaCacheSize = 32 << 20
	}
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if o.Store == nil {
		return errors.New("kv: no storage given")
	}
	if o.MaxStringSize < 0 {
		return fmt.Errorf("kv: negative maximum string size %d", o.MaxStringSize)
	}
	return nil
}

// counters are the exact figures of one physical database, kept in memory
// and stored beside the keys (counters_store.go). keys and expires count every stored key,
// expired or not; readers subtract the due entries of the expiry index.
type counters struct {
	keys    int64
	expires int64
	expSum  i128         // sum of the expireAt of every indexed key, for avg_ttl
	sub     subexpCounts // hashes with field expiries, for subexpiry (subexpiry.go)
	bytes   int64        // the counted memory of every stored key (evict.go: keyCost)
}

// Store is the Redis data model on a storage.Store. Every operation runs
// inside a Tx, and at most one Tx is open at a time: commands are
// serializable exactly like Redis's single thread.
type Store struct {
	st   *storage.Store
	opts Options

	mu sync.Mutex // held by the open Tx
	// expiryLog is the expiry log's setting, nil when off (expiry_log.go).
	expiryLog atomic.Pointer[ExpiryLog]
	// commitMu is held while a committed batch is applied to storage,
	// taken under mu and kept past it (commit.go).
	commitMu sync.Mutex
	failed   atomic.Pointer[failure] // set once an apply fails (commit.go)
	// proposed waits for the last batch proposed to the replica set; nil
	// on a standalone. Set and read holding commitMu (commit.go).
	proposed func() error
	// proposedSeq is the number of the proposal proposed waits for
	// (unapplied.go); set and read holding commitMu.
	proposedSeq uint64
	// unapplied records what the proposals not yet applied wrote, so that
	// reads of other keys need not wait for them (unapplied.go).
	unapplied unapplied
	// stale asks the next Tx to rebuild the in-memory state (reload.go).
	stale atomic.Bool
	// applyHook, when set (by tests), runs before each batch is applied,
	// holding commitMu; an error it returns fails the apply.
	applyHook func() error
	dbmap     [NumDBs]byte
	c         [NumDBs]counters // indexed by physical db
	version   uint64           // last collection version handed out
	observer  Observer
	closed    bool
	scans     scanCursors
	cache     *metaCache // used under mu
	// dueFrom is, per physical db, a key of the expiry index below which
	// the index holds no entry, so that counting the due entries (Tx.due,
	// behind DBSIZE and INFO keyspace) starts there instead of stepping
	// over the tombstones of every key the sweeper has reaped (a storm's
	// keys share one time, so the bound must be a whole key). Nil means
	// unknown. Used under mu.
	dueFrom [NumDBs][]byte
	// dueCounts caches, per physical db, the count of due expiry index
	// entries behind DBSIZE and INFO keyspace (duecount.go). Used under mu.
	dueCounts [NumDBs]dueCount

	dbmapAtomic  atomic.Pointer[[NumDBs]byte] // for readers without the lock
	notifyMask   atomic.Uint32
	trackTouches atomic.Bool
	maxString    atomic.Int64
	garbage      chan struct{} // signals the collector

	stats struct {
		expired       atomic.Int64
		expiredLazy   atomic.Int64
		hits          atomic.Int64
		misses        atomic.Int64
		garbageDone   atomic.Int64
		garbageFailed atomic.Int64
		evicted       atomic.Int64
	}

	// eviction is the maxmemory configuration (evict.go); used is the
	// counted memory of all databases as of the last commit, and pool
	// the candidates of the LRU and LFU policies (used under mu).
	eviction atomic.Pointer[Eviction]
	used     atomic.Int64
	pool     evictionPool
	evict    chan struct{} // signals the background eviction pass

	hashStats hashStats   // expired hash fields (hash_gone.go)
	access    accessClock // keys' last access for OBJECT (access.go); used under mu

	txPool sync.Pool
}

// Open loads the Redis data model from opts.Store: it reads the database
// map and the stored key counters (counters_store.go), or rebuilds those
// with one scan of the metadata and the expiry index when the store has
// none yet. ctx bounds that scan.
func Open(ctx context.Context, opts Options) (*Store, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Store{st: opts.Store, opts: opts, garbage: make(chan struct{}, 1), evict: make(chan struct{}, 1), cache: newMetaCache(opts.MetaCacheSize)}
	s.eviction.Store(&Eviction{Policy: PolicyNoEviction, Samples: 5, Tenacity: 10, LFULogFactor: 10, LFUDecayTime: 1})
	s.maxString.Store(opts.MaxStringSize)
	s.scans.init()
	for i := range s.dbmap {
		s.dbmap[i] = byte(i)
	}
	if v, err := s.st.Get(dbmapKey()); err == nil {
		if len(v) != NumDBs {
			return nil, fmt.Errorf("%w: database map of %d bytes", ErrCorrupt, len(v))
		}
		copy(s.dbmap[:], v)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("kv: read database map: %w", err)
	}
	m := s.dbmap
	s.dbmapAtomic.Store(&m)
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func dbmapKey() []byte { return []byte{storage.PrefixRedisMeta, internalDB, 'd', 'b', 'm', 'a', 'p'} }

// load reads the counters and the version high-water mark from their
// stored records (counters_store.go), or rebuilds them with a scan of
// every key and stores them when the records are missing.
func (s *Store) load(ctx context.Context) error {
	stored, err := s.readStoredCounters()
	if err != nil {
		return err
	}
	if !stored {
		if err := s.scanCounters(ctx); err != nil {
			return err
		}
	}
	s.publishUsed()
	// The highest version still owning sub-keys or garbage, so that a
	// version is never handed out twice.
	for _, p := range []byte{storage.PrefixRedisSub, storage.PrefixGarbage} {
		for pdb := 0; pdb < NumDBs; pdb++ {
			lo := []byte{p, byte(pdb)}
			it, err := s.st.NewIter(lo, storage.PrefixEnd(lo))
			if err != nil {
				return fmt.Errorf("kv: load: %w", err)
			}
			if it.Last() && len(it.Key()) >= 10 {
				if v := binary.BigEndian.Uint64(it.Key()[2:10]); v > s.version {
					s.version = v
				}
			}
			if err := it.Close(); err != nil {
				return fmt.Errorf("kv: load: %w", err)
			}
		}
	}
	if !stored && s.st.Writable() == nil { // a replica set follower gets them from the primary
		return s.writeStoredCounters()
	}
	return nil
}

// scanCounters rebuilds the counters and the version high-water mark of
// the metadata with one scan of every key and of the expiry index. A
// collection record without its element bytes (written before they were
// kept) gets them, recounted from its elements and written back, so that
// every key counts its real size from the start.
func (s *Store) scanCounters(ctx context.Context) error {
	up := s.st.NewBatch()
	defer func() { up.Close() }()
	for pdb := 0; pdb < NumDBs; pdb++ {
		it, err := s.st.NewIter(metaPrefix(byte(pdb)), storage.PrefixEnd(metaPrefix(byte(pdb))))
		if err != nil {
			return fmt.Errorf("kv: load: %w", err)
		}
		var n int64
		for ok := it.First(); ok; ok = it.Next() {
			if n%4096 == 0 && ctx.Err() != nil {
				it.Close()
				return fmt.Errorf("kv: load: %w", ctx.Err())
			}
			n++
			if m, err := decodeMeta(it.Value()); err == nil {
				if m.ElemBytes < 0 && m.Type != TypeStream {
					if m.ElemBytes, err = recountElemBytes(s.st, byte(pdb), m); err != nil {
						it.Close()
						return fmt.Errorf("kv: load: element bytes: %w", err)
					}
					if err := up.Set(bytes.Clone(it.Key()), m.encode(nil)); err != nil {
						it.Close()
						return fmt.Errorf("kv: load: %w", err)
					}
				}
				s.version = max(s.version, m.Version)
				s.c[pdb].sub.add(subexpOf(m))
				s.c[pdb].bytes += keyCost(len(it.Key())-len(metaPrefix(byte(pdb))), m)
			}
		}
		if err := it.Close(); err != nil {
			return fmt.Errorf("kv: load: %w", err)
		}
		if !up.Empty() && s.st.Writable() == nil { // a follower recounts again later
			if err := up.Commit(); err != nil {
				return fmt.Errorf("kv: load: element bytes: %w", err)
			}
			up.Close()
			up = s.st.NewBatch()
		}
		s.c[pdb].keys = n
		it, err = s.st.NewIter(expiryPrefix(byte(pdb)), storage.PrefixEnd(expiryPrefix(byte(pdb))))
		if err != nil {
			return fmt.Errorf("kv: load: %w", err)
		}
		for ok := it.First(); ok; ok = it.Next() {
			at, _, ok := decodeExpiryKey(it.Key())
			if !ok {
				continue
			}
			s.c[pdb].expires++
			s.c[pdb].expSum.add(at)
		}
		if err := it.Close(); err != nil {
			return fmt.Errorf("kv: load: %w", err)
		}
	}
	return nil
}

// Close marks the store closed; later Begin calls still work but Commit
// fails. It returns once every committed batch is applied. It does not
// close the underlying storage, which the caller owns.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.waitApplied()
	s.mu.Unlock()
	return nil
}

// Sync makes every write committed so far durable: it syncs the storage's
// write-ahead log to disk. It does not take the store's lock, so a command
// may call it from inside Tx.Yield.
func (s *Store) Sync() error {
	if err := s.opts.Store.SyncWAL(); err != nil {
		return fmt.Errorf("kv: sync: %w", err)
	}
	return nil
}

// Sources returns one expiry source per logical database, for the engine.
func (s *Store) Sources() []expiry.Source {
	out := make([]expiry.Source, NumDBs)
	for i := range out {
		out[i] = newKeySource(s, i)
	}
	return out
}

// SetMaxStringSize changes the largest string value (CONFIG SET
// proto-max-bulk-len).
func (s *Store) SetMaxStringSize(n int64) { s.maxString.Store(n) }

// Stats are kv's counters since Open, for INFO and metrics.
type Stats struct {
	ExpiredKeys     int64 // keys deleted because they expired (lazily or by the sweeper)
	LazyExpiredKeys int64 // of which found expired by a read or write
	KeyspaceHits    int64
	KeyspaceMisses  int64
	GarbageVersions int64 // old collection versions whose sub-keys were collected
	EvictedKeys     int64 // keys deleted to keep used memory under maxmemory
}

// Stats returns the counters since Open.
func (s *Store) Stats() Stats {
	return Stats{
		ExpiredKeys:     s.stats.expired.Load(),
		LazyExpiredKeys: s.stats.expiredLazy.Load(),
		KeyspaceHits:    s.stats.hits.Load(),
		KeyspaceMisses:  s.stats.misses.Load(),
		GarbageVersions: s.stats.garbageDone.Load(),
		EvictedKeys:     s.stats.evicted.Load(),
	}
}

// ResetStats zeroes the counters that CONFIG RESETSTAT resets.
func (s *Store) ResetStats() {
	s.stats.expired.Store(0)
	s.stats.expiredLazy.Store(0)
	s.stats.hits.Store(0)
	s.stats.misses.Store(0)
	s.stats.evicted.Store(0)
}

// KeyspaceInfo describes one logical database for INFO keyspace.
type KeyspaceInfo struct {
	DB      int
	Keys    int64 // live keys
	Expires int64 // live keys with an expiry
	AvgTTL  int64 // mean remaining TTL of those, in ms
	// Subexpiry is the number of live keys with a live hash field expiry.
	Subexpiry int64
}

// Keyspace returns the figures of every non-empty logical database at now.
// Expired keys not yet deleted are not counted. It fails once the store
// has failed (commit.go).
func (s *Store) Keyspace(ctx context.Context) ([]KeyspaceInfo, error) {
	tx := s.Begin()
	out, err := tx.keyspace()
	tx.Rollback() // waits for the commits the figures include to be applied
	if err == nil {
		if err = s.Err(); err != nil {
			return nil, fmt.Errorf("kv: keyspace: %w", err)
		}
	}
	return out, err
}

func (tx *Tx) keyspace() ([]KeyspaceInfo, error) {
	var out []KeyspaceInfo
	for db := 0; db < NumDBs; db++ {
		tx.Use(db)
		ki, err := tx.keyspaceInfo()
		if err != nil {
			return nil, err
		}
		if ki.Keys > 0 {
			out = append(out, ki)
		}
	}
	return out, nil
}
