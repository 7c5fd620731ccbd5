package docdb

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
// keeps to at most one chunk per policyBuildPause of the Engine's clock
// (with at most policyBuildBurst of catching up after a stall), so it
// never monopolises a collection and, under a manual test clock, advances
// only as the clock does.

// Build pacing defaults.
const (
	policyBuildChunk = 1000
	policyBuildPause = 10 * time.Millisecond
	policyBuildBurst = time.Second
)

// pacer spaces the chunks of one build on the Engine's clock.
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
func (p *policyManager) ensurePolicyIndex(c *catalog.Collection, group, field string) (*policyIndex, error) {
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped || c.Meta.Name != group {
		return nil, nil
	}
	r := p.policyRuleFor(group)
	if r == nil || r.field != field {
		return nil, nil
	}
	cur := p.indexOf(c.Meta.ID)
	if cur != nil && cur.group == group && cur.field == field {
		return cur, nil
	}
	b := p.store.NewBatch()
	defer b.Close()
	if cur != nil {
		if err := deletePolicyIndex(b, cur); err != nil {
			return nil, err
		}
	}
	// Ids are allocated and committed under Engine.mu, so the stored
	// counter never goes backwards.
	p.catMu.Lock()
	id, err := p.cat.AllocID(b)
	if err != nil {
		p.catMu.Unlock()
		return nil, err
	}
	ix := &policyIndex{collID: c.Meta.ID, ixID: id, group: group, field: field, path: r.path}
	if err = putPolicyIndex(b, ix); err == nil {
		err = b.Commit()
	}
	p.catMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("docdb: create hidden TTL index of %s.%s: %w", c.Meta.DB, c.Meta.Name, err)
	}
	p.mu.Lock()
	p.setIndexLocked(ix.collID, ix)
	p.mu.Unlock()
	return ix, nil
}

// buildPolicyIndex builds c's hidden index for group.field, reporting
// progress to operation seq (0: none) and resuming where that operation
// stopped in c. It returns once the index is complete, c has left the
// group, the policy changed, or ctx is done.
func (p *policyManager) buildPolicyIndex(ctx context.Context, c *catalog.Collection, group, field string, seq uint64) error {
	ix, err := p.ensurePolicyIndex(c, group, field)
	if err != nil || ix == nil || ix.complete {
		return err
	}
	var after []byte
	if seq != 0 {
		p.mu.Lock()
		if op := p.ops[seq]; op != nil && uint64(op.ResumeColl) == ix.collID {
			after = append([]byte(nil), op.ResumeAfter...)
		}
		p.mu.Unlock()
	}
	pace := pacer{now: p.now, pause: time.Duration(p.pause.Load())}
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
func (p *policyManager) buildChunk(c *catalog.Collection, ix *policyIndex, seq uint64, after *[]byte) (done bool, err error) {
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped || c.Meta.Name != ix.group {
		return true, nil
	}
	if cur := p.indexOf(ix.collID); cur == nil || cur.ixID != ix.ixID {
		return true, nil
	}
	r := p.policyRuleFor(ix.group)
	if r == nil || r.field != ix.field {
		return true, nil
	}
	nowMs := p.now().UnixMilli()
	b := p.store.NewBatch()
	defer b.Close()
	prefix := catalog.DocPrefix(ix.collID)
	lower := prefix
	if *after != nil {
		lower = append(catalog.DocKey(ix.collID, *after), 0)
	}
	it, err := p.store.NewIter(lower, storage.PrefixEnd(prefix))
	if err != nil {
		return false, err
	}
	var n, expired int64
	earliest := int64(math.MaxInt64)
	more := false
	chunk := max(p.chunk.Load(), 1)
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
		if d, ok := earliestDate(sd.Doc, ix.path); ok {
			if err := b.Set(policyEntryKey(ix.ixID, d, sd.IDEnc), nil); err != nil {
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
	var completed *policyIndex
	if !more {
		cp := *ix
		cp.complete = true
		completed = &cp
		if err := putPolicyIndex(b, completed); err != nil {
			return false, err
		}
	}
	p.mu.Lock()
	var rec *opRecord
	if op := p.ops[seq]; seq != 0 && op != nil && !op.Done {
		cp := *op
		cp.Scanned += n
		cp.Expired += expired
		cp.ResumeColl, cp.ResumeAfter = int64(ix.collID), *after
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
		p.setIndexLocked(ix.collID, completed)
	}
	p.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("docdb: index %s.%s for its TTL policy: %w", c.Meta.DB, c.Meta.Name, err)
	}
	if earliest != math.MaxInt64 && p.expiry != nil {
		p.expiry.Wake(time.UnixMilli(earliest))
	}
	return !more, nil
}
