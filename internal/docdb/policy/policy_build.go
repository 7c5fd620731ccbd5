package policy

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Building a hidden index. Once the index is published (incomplete), every
// writer keeps the entries of the documents it writes, so the build only
// has to index the documents already there. It walks the collection in _id
// order in chunks; each chunk runs under the collection's write lock (so
// no writer changes a document between its read and its entry) and commits
// its entries in one storage batch together with the operation's progress
// and resume point. Between chunks the lock is released, and the build
// keeps to at most one chunk per BuildPause of the engine's clock
// (with at most policyBuildBurst of catching up after a stall), so it
// never monopolises a collection and, under a manual test clock, advances
// only as the clock does.

// Build pacing defaults.
const (
	policyBuildChunk = 1000
	BuildPause       = 10 * time.Millisecond
	policyBuildBurst = time.Second
)

// pacer spaces the chunks of one build on the engine's clock.
type pacer struct {
	now   func() time.Time
	pause time.Duration
	next  time.Time
}

// wait returns when the next chunk may run, or with ctx's error.
func (p *pacer) wait(ctx context.Context) error {
	for {
		now := p.now()
		if p.next.IsZero() {
			p.next = now.Add(p.pause)
			return nil
		}
		if !now.Before(p.next) {
			p.next = p.next.Add(p.pause)
			if floor := now.Add(-policyBuildBurst); p.next.Before(floor) {
				p.next = floor
			}
			return nil
		}
		// Re-read the clock at least every pause: a manual clock moves
		// without the timer knowing.
		t := time.NewTimer(min(p.next.Sub(now), p.pause))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// ensurePolicyIndex returns c's hidden index for group.field, creating an
// empty, incomplete one (and dropping one on another field) when needed.
// It returns nil when c has left the group or the policy changed.
func (p *Manager) ensurePolicyIndex(c *catalog.Collection, group, field string) (*Index, error) {
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped || c.Meta.Name != group {
		return nil, nil
	}
	r := p.RuleFor(group)
	if r == nil || r.field != field {
		return nil, nil
	}
	cur := p.IndexOf(c.Meta.ID)
	if cur != nil && cur.Group == group && cur.Field == field {
		return cur, nil
	}
	b := p.Store.NewBatch()
	defer b.Close()
	if cur != nil {
		if err := deletePolicyIndex(b, cur); err != nil {
			return nil, err
		}
	}
	// Ids are allocated and committed under the catalog lock, so the stored
	// counter never goes backwards.
	p.CatalogMu.Lock()
	id, err := p.Catalog.AllocID(b)
	if err != nil {
		p.CatalogMu.Unlock()
		return nil, err
	}
	ix := &Index{CollID: c.Meta.ID, ID: id, Group: group, Field: field, Path: r.path}
	if err = PutIndex(b, ix); err == nil {
		err = b.Commit()
	}
	p.CatalogMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("docdb: create hidden TTL index of %s.%s: %w", c.Meta.DB, c.Meta.Name, err)
	}
	p.mu.Lock()
	p.setIndexLocked(ix.CollID, ix)
	p.mu.Unlock()
	return ix, nil
}

// buildPolicyIndex builds c's hidden index for group.field, reporting
// progress to operation seq (0: none) and resuming where that operation
// stopped in c. It returns once the index is complete, c has left the
// group, the policy changed, or ctx is done.
func (p *Manager) buildPolicyIndex(ctx context.Context, c *catalog.Collection, group, field string, seq uint64) error {
	ix, err := p.ensurePolicyIndex(c, group, field)
	if err != nil || ix == nil || ix.Complete {
		return err
	}
	var after []byte
	if seq != 0 {
		p.mu.Lock()
		if op := p.ops[seq]; op != nil && uint64(op.ResumeColl) == ix.CollID {
			after = append([]byte(nil), op.ResumeAfter...)
		}
		p.mu.Unlock()
	}
	pace := pacer{now: p.Now, pause: time.Duration(p.Pause.Load())}
	for {
		if err := pace.wait(ctx); err != nil {
			return err
		}
		done, err := p.buildChunk(c, ix, seq, &after)
		if err != nil || done {
			return err
		}
	}
}

// buildChunk indexes the next chunk of c's documents after *after, and
// moves *after on. done reports that the index is complete or that the
// build has nothing left to do in c.
func (p *Manager) buildChunk(c *catalog.Collection, ix *Index, seq uint64, after *[]byte) (done bool, err error) {
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped || c.Meta.Name != ix.Group {
		return true, nil
	}
	if cur := p.IndexOf(ix.CollID); cur == nil || cur.ID != ix.ID {
		return true, nil
	}
	r := p.RuleFor(ix.Group)
	if r == nil || r.field != ix.Field {
		return true, nil
	}
	nowMs := p.Now().UnixMilli()
	b := p.Store.NewBatch()
	defer b.Close()
	prefix := catalog.DocPrefix(ix.CollID)
	lower := prefix
	if *after != nil {
		lower = append(catalog.DocKey(ix.CollID, *after), 0)
	}
	it, err := p.Store.NewIter(lower, storage.PrefixEnd(prefix))
	if err != nil {
		return false, err
	}
	var n, expired int64
	earliest := int64(math.MaxInt64)
	more := false
	chunk := max(p.Chunk.Load(), 1)
	for ok := it.First(); ok; ok = it.Next() {
		if n == chunk {
			more = true
			break
		}
		sd, err := stored.New(append([]byte(nil), it.Value()...))
		if err != nil {
			it.Close()
			return false, fmt.Errorf("docdb: index %s.%s for its TTL policy: document %x: %w", c.Meta.DB, c.Meta.Name, it.Key(), err)
		}
		if d, ok := earliestDate(sd.Doc, ix.Path); ok {
			if err := b.Set(EntryKey(ix.ID, d, sd.IDEnc), nil); err != nil {
				it.Close()
				return false, err
			}
			due := addMillis(d, r.offsetMs)
			if due <= nowMs {
				expired++
			}
			earliest = min(earliest, due)
		}
		*after = append((*after)[:0:0], sd.IDEnc...)
		n++
	}
	err = it.Error()
	it.Close()
	if err != nil {
		return false, err
	}
	var completed *Index
	if !more {
		cp := *ix
		cp.Complete = true
		completed = &cp
		if err := PutIndex(b, completed); err != nil {
			return false, err
		}
	}
	p.mu.Lock()
	var rec *opRecord
	if op := p.ops[seq]; seq != 0 && op != nil && !op.Done {
		cp := *op
		cp.Scanned += n
		cp.Expired += expired
		cp.ResumeColl, cp.ResumeAfter = int64(ix.CollID), *after
		if !more {
			cp.ResumeColl, cp.ResumeAfter = 0, nil
		}
		if err := putOp(b, &cp); err != nil {
			p.mu.Unlock()
			return false, err
		}
		rec = &cp
	}
	err = p.commitLocked(b, nil, rec)
	if err == nil && completed != nil {
		p.setIndexLocked(ix.CollID, completed)
	}
	p.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("docdb: index %s.%s for its TTL policy: %w", c.Meta.DB, c.Meta.Name, err)
	}
	if earliest != math.MaxInt64 && p.Expiry != nil {
		p.Expiry.Wake(time.UnixMilli(earliest))
	}
	return !more, nil
}
