package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// Catalog keys of policies, under storage.PrefixCatalog.
const (
	KeyPolicy byte = 'P' // 'P' group -> policyRecord
	KeyIndex  byte = 'Q' // 'Q' collection id u64 -> policyIndexRecord
)

// policyRecord is a policy as the catalog stores it.
type policyRecord struct {
	Group    string `bson:"group"`
	Field    string `bson:"field"`
	OffsetMs int64  `bson:"offsetMs"`
	State    string `bson:"state"`
	Op       int64  `bson:"op"`      // sequence number of the last operation
	Updated  int64  `bson:"updated"` // Unix ms
}

func (r *policyRecord) state() State { return State(r.State) }

// policy returns the API form of r.
func (r *policyRecord) policy() Policy {
	return Policy{
		Group:      r.Group,
		Field:      r.Field,
		Offset:     time.Duration(r.OffsetMs) * time.Millisecond,
		State:      r.state(),
		Operation:  opID(uint64(r.Op)),
		UpdateTime: time.UnixMilli(r.Updated).UTC(),
		Source:     policySourceName(r.Group, r.Field),
	}
}

func policyKey(group string) []byte {
	return append([]byte{storage.PrefixCatalog, KeyPolicy}, group...)
}

// Config is what the policy manager is given by the engine.
type Config struct {
	// store holds the policies, operations and hidden indexes.
	Store *storage.Store
	// cat is the engine's catalog, guarded by catMu (the catalog lock).
	Catalog   *catalog.Catalog
	CatalogMu *sync.RWMutex
	// now is the engine's clock.
	Now func() time.Time
	// expiry is the expiry engine; nil when documents are never reaped.
	Expiry Registry
	Logger *slog.Logger
	// newWriter returns the engine's writer on c, whose write lock the
	// caller holds, to delete due documents with all of their index
	// entries.
	NewWriter func(c *catalog.Collection) Writer
}

// Writer is the engine's writer as a policy source deletes documents
// through it (see policyConfig.newWriter).
type Writer interface {
	// Fetch returns the stored document with encoded _id idEnc, or nil.
	Fetch(idEnc []byte) (*stored.Doc, error)
	// EntryKeysOf returns the entries doc has in each secondary index.
	EntryKeysOf(doc bson.D) ([][]catalog.IndexKey, error)
	// RemoveExpired deletes a document with all of its index entries, and
	// tells the write hooks it expired for why.
	RemoveExpired(sd *stored.Doc, why change.Expiry) error
	// Delete adds the deletion of one key to the writer's batch.
	Delete(key []byte) error
	// Commit applies the writer's batch; Close discards what is left.
	Commit() error
	Close()
}

// Manager holds the TTL policies of an engine. Lock order: update, then
// collection write locks, then the catalog lock, then mu; mu is a leaf
// lock. Writers and readers never lock: they load rules and indexes
// atomically.
type Manager struct {
	Config

	// update serializes policy changes and operation completions.
	update sync.Mutex

	// mu guards the fields below. Catalog writes of policies and operations
	// commit under mu, so the maps always equal what is stored.
	mu       sync.Mutex
	policies map[string]*policyRecord // by group, disabled ones included
	ops      map[uint64]*opRecord     // by sequence number
	nextOp   uint64
	prune    []uint64          // finished operations the pending batch deletes
	sources  map[string]string // group -> registered expiry source name
	closed   bool
	// The worker.
	running bool
	dirty   bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// rules are the enabled policies by group, for visibility and expiry.
	rules atomic.Pointer[map[string]*Rule]
	// indexes are the hidden indexes by collection id. An entry changes only
	// with its collection's write lock held, so a writer sees one index for
	// its whole life.
	indexes atomic.Pointer[map[uint64]*Index]

	// Build pacing: chunk documents per chunk, and at most one chunk per
	// pause (nanoseconds) of the engine's clock. Tests change them.
	Chunk atomic.Int64
	Pause atomic.Int64
}

// setRuleLocked publishes (or, with nil, removes) the rule of group; mu is
// held.
func (p *Manager) setRuleLocked(group string, r *Rule) {
	next := map[string]*Rule{}
	if cur := p.rules.Load(); cur != nil {
		for k, v := range *cur {
			next[k] = v
		}
	}
	if r == nil {
		delete(next, group)
	} else {
		next[group] = r
	}
	p.rules.Store(&next)
}

// setIndexLocked publishes (or, with nil, removes) the hidden index of a
// collection; mu and the collection's write lock are held (or the
// collection is not reachable yet).
func (p *Manager) setIndexLocked(collID uint64, ix *Index) {
	next := map[uint64]*Index{}
	if cur := p.indexes.Load(); cur != nil {
		for k, v := range *cur {
			next[k] = v
		}
	}
	if ix == nil {
		delete(next, collID)
	} else {
		next[collID] = ix
	}
	p.indexes.Store(&next)
}

// IndexOf returns the hidden index of a collection, or nil.
func (p *Manager) IndexOf(collID uint64) *Index {
	m := p.indexes.Load()
	if m == nil {
		return nil
	}
	return (*m)[collID]
}

// groupIndexes returns the hidden indexes of group on field.
func (p *Manager) groupIndexes(group, field string) []*Index {
	m := p.indexes.Load()
	if m == nil {
		return nil
	}
	var out []*Index
	for _, ix := range *m {
		if ix.Group == group && ix.Field == field {
			out = append(out, ix)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CollID < out[j].CollID })
	return out
}

// policyCopy returns a copy of group's record, or nil.
func (p *Manager) policyCopy(group string) *policyRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.policies[group]
	if !ok {
		return nil
	}
	c := *r
	return &c
}

// commitLocked commits b and then applies the records to the maps; mu is
// held. A nil record is skipped.
func (p *Manager) commitLocked(b *storage.Batch, pol *policyRecord, ops ...*opRecord) error {
	if err := b.Commit(); err != nil {
		return err
	}
	if pol != nil {
		p.policies[pol.Group] = pol
	}
	for _, op := range ops {
		if op != nil {
			p.ops[uint64(op.Seq)] = op
		}
	}
	return nil
}

// putPolicy writes r into b.
func putPolicy(b *storage.Batch, r *policyRecord) error {
	raw, err := bson.Marshal(r)
	if err != nil {
		return fmt.Errorf("docdb: encode policy: %w", err)
	}
	return b.Set(policyKey(r.Group), raw)
}

// New returns the manager of the policies stored in cfg.Store. It does
// nothing until Open.
func New(cfg Config) *Manager { return &Manager{Config: cfg} }

// Open loads policies, hidden indexes and operations at Open,
// drops hidden indexes that no longer belong to an enabled policy,
// publishes the rules, registers the sources and resumes unfinished
// operations.
func (p *Manager) Open() error {
	p.policies = map[string]*policyRecord{}
	p.ops = map[uint64]*opRecord{}
	p.sources = map[string]string{}
	p.Chunk.Store(policyBuildChunk)
	p.Pause.Store(int64(BuildPause))
	if err := p.loadPolicyRecords(); err != nil {
		return err
	}
	if err := p.loadOperations(); err != nil {
		return err
	}
	if err := p.loadPolicyIndexes(); err != nil {
		return err
	}
	p.mu.Lock()
	var enabled []*policyRecord
	for _, r := range p.policies {
		if r.state().enabled() {
			p.setRuleLocked(r.Group, NewRule(r.Group, r.Field, r.OffsetMs))
			enabled = append(enabled, r)
		}
	}
	p.mu.Unlock()
	sort.Slice(enabled, func(i, j int) bool { return enabled[i].Group < enabled[j].Group })
	for _, r := range enabled {
		p.registerPolicySource(r.Group, r.Field)
	}
	// The worker starts only for work: an unfinished operation, or an
	// enabled policy whose group may lack an index (a collection renamed
	// into it just before a crash).
	if len(enabled) > 0 || p.nextPendingOp() != 0 {
		p.kickPolicies()
	}
	return nil
}

// loadPolicyRecords reads every policy record.
func (p *Manager) loadPolicyRecords() error {
	lower := []byte{storage.PrefixCatalog, KeyPolicy}
	it, err := p.Store.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		var r policyRecord
		if err := bson.Unmarshal(it.Value(), &r); err != nil {
			return fmt.Errorf("docdb: decode policy %q: %w", it.Key()[2:], err)
		}
		p.policies[r.Group] = &r
	}
	return it.Error()
}

// Close stops the worker and unregisters the policy sources; Close
// calls it. An unfinished operation resumes at the next Open.
func (p *Manager) Close() {
	p.mu.Lock()
	if p.closed || p.policies == nil {
		p.closed = true
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	var names []string
	for _, n := range p.sources {
		names = append(names, n)
	}
	p.sources = map[string]string{}
	p.mu.Unlock()
	p.wg.Wait()
	if p.Expiry != nil {
		for _, n := range names {
			p.Expiry.Unregister(n)
		}
	}
}

// registerPolicySource registers the expiry source of the policy on
// group.field, unless it is registered already.
func (p *Manager) registerPolicySource(group, field string) {
	name := policySourceName(group, field)
	p.mu.Lock()
	if p.sources[group] == name || p.closed {
		p.mu.Unlock()
		return
	}
	old := p.sources[group]
	p.sources[group] = name
	p.mu.Unlock()
	if p.Expiry == nil {
		return
	}
	if old != "" {
		p.Expiry.Unregister(old)
	}
	if err := p.Expiry.Register(&policySource{p: p, group: group, field: field, name: name}); err != nil {
		p.Logger.Error("docdb: register TTL policy source", "source", name, "err", err)
	}
}

// unregisterPolicySource removes the expiry source of group's policy.
func (p *Manager) unregisterPolicySource(group string) {
	p.mu.Lock()
	name, ok := p.sources[group]
	delete(p.sources, group)
	p.mu.Unlock()
	if ok && p.Expiry != nil {
		p.Expiry.Unregister(name)
	}
}

// errPolicyClosed reports whether the manager is closed.
func (p *Manager) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// ignoreClosed drops the error of a storage that closed under a background
// task: the task resumes at the next Open.
func ignoreClosed(err error) error {
	if errors.Is(err, storage.ErrClosed) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Registry is the expiry engine as policies use it: it registers
// each enabled policy's source and is woken when documents may be due.
type Registry interface {
	// Register adds a source; its name is unique among registered sources.
	Register(src expiry.Source) error
	// Unregister removes the source with that name, if registered.
	Unregister(name string) bool
	// Wake tells the sweeper that an item may be due at due.
	Wake(due time.Time)
}
