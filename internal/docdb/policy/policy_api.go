package policy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// The policy API, as the admin HTTP API calls it.

// ListPolicies returns every policy, disabled ones included, sorted by
// collection group.
func (p *Manager) ListPolicies(ctx context.Context) ([]Policy, error) {
	p.mu.Lock()
	recs := make([]policyRecord, 0, len(p.policies))
	for _, r := range p.policies {
		recs = append(recs, *r)
	}
	p.mu.Unlock()
	sort.Slice(recs, func(i, j int) bool { return recs[i].Group < recs[j].Group })
	out := make([]Policy, 0, len(recs))
	for i := range recs {
		out = append(out, p.describePolicy(&recs[i]))
	}
	return out, nil
}

// GetPolicy returns the policy of a collection group, or an error wrapping
// ErrPolicyNotFound.
func (p *Manager) GetPolicy(ctx context.Context, group string) (Policy, error) {
	r := p.policyCopy(group)
	if r == nil {
		return Policy{}, fmt.Errorf("%w: collection group %q has no TTL policy", ErrNotFound, group)
	}
	return p.describePolicy(r), nil
}

// describePolicy returns r's API form with the group's collection counts.
func (p *Manager) describePolicy(r *policyRecord) Policy {
	pol := r.policy()
	colls := p.groupCollections(r.Group)
	pol.Collections = len(colls)
	if r.state().enabled() {
		for _, c := range colls {
			if ix := p.IndexOf(c.Meta.ID); ix != nil && ix.Complete && ix.Group == r.Group && ix.Field == r.Field {
				pol.Indexed++
			}
		}
	}
	return pol
}

// UpdatePolicy enables, re-offsets or disables the TTL policy of a
// collection group and returns the operation that does it.
//
// Enabling a group without an enabled policy starts an ENABLE_TTL
// operation that builds the hidden indexes (state CREATING, then ACTIVE);
// its documents are hidden once expired from the moment this returns.
// Enabling the policy's own field again changes only the offset: on an
// ACTIVE policy that is an UPDATE_TTL_OFFSET operation done at once, on a
// CREATING one the running operation takes the new offset and is returned.
// A NEEDS_REPAIR policy is rebuilt. Enabling another field than an enabled
// policy's fails with ErrPolicyConflict, and a new policy beyond
// MaxPolicies with ErrTooManyPolicies.
//
// Disabling stops deletion at once, drops the hidden indexes and ends a
// running build (its operation ends DISABLED, superseded); it must name the
// policy's field (ErrPolicyNotFound otherwise).
func (p *Manager) UpdatePolicy(ctx context.Context, u Update) (Operation, error) {
	if err := validatePolicyUpdate(u); err != nil {
		return Operation{}, err
	}
	p.update.Lock()
	defer p.update.Unlock()
	if p.isClosed() {
		return Operation{}, ErrClosed
	}
	if u.Enable {
		return p.enablePolicy(u)
	}
	return p.disablePolicy(u)
}

// checkEnable returns the group's current policy (nil when none) after
// checking that enabling u is allowed.
func (p *Manager) checkEnable(u Update) (*policyRecord, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur, ok := p.policies[u.Group]
	if ok && cur.state().enabled() {
		if cur.Field != u.Field {
			return nil, fmt.Errorf("%w: collection group %q already has a TTL policy on field %q; a collection group has at most one TTL field, so disable that policy first",
				ErrConflict, u.Group, cur.Field)
		}
		c := *cur
		return &c, nil
	}
	n := 0
	for _, r := range p.policies {
		if r.state().enabled() {
			n++
		}
	}
	if n >= MaxPolicies {
		return nil, fmt.Errorf("%w: the limit is %d TTL field configurations and %d are enabled; disable one before enabling another",
			ErrTooMany, MaxPolicies, n)
	}
	if !ok {
		return nil, nil
	}
	c := *cur
	return &c, nil
}

// enablePolicy is UpdatePolicy's enable; p.update is held.
func (p *Manager) enablePolicy(u Update) (Operation, error) {
	cur, err := p.checkEnable(u)
	if err != nil {
		return Operation{}, err
	}
	now := p.Now()
	offMs := u.Offset.Milliseconds()
	rule := NewRule(u.Group, u.Field, offMs)
	estimate := p.groupDocCount(u.Group)
	b := p.Store.NewBatch()
	defer b.Close()
	p.mu.Lock()
	if cur != nil && cur.state().enabled() {
		running := p.ops[uint64(cur.Op)]
		switch {
		case cur.state() == Creating && running != nil && !running.Done:
			// The build goes on; only the offset changes.
			pc, oc := *cur, *running
			pc.OffsetMs, pc.Updated = offMs, now.UnixMilli()
			oc.OffsetMs = offMs
			err := putPolicy(b, &pc)
			if err == nil {
				err = putOp(b, &oc)
			}
			if err == nil {
				err = p.commitLocked(b, &pc, &oc)
			}
			if err != nil {
				p.mu.Unlock()
				return Operation{}, fmt.Errorf("docdb: update TTL policy: %w", err)
			}
			p.setRuleLocked(u.Group, rule)
			p.mu.Unlock()
			p.wakeNow()
			return oc.operation(), nil
		case cur.state() == Active:
			op, err := p.newOpLocked(b, OpUpdateTTLOffset, u.Group, u.Field, offMs, now)
			if err != nil {
				p.mu.Unlock()
				return Operation{}, err
			}
			op.finish(Active, "", now)
			pc := *cur
			pc.OffsetMs, pc.Op, pc.Updated = offMs, op.Seq, now.UnixMilli()
			if err := p.commitPolicyOp(b, &pc, op); err != nil {
				p.mu.Unlock()
				return Operation{}, err
			}
			p.setRuleLocked(u.Group, rule)
			p.mu.Unlock()
			p.wakeNow()
			return op.operation(), nil
		}
	}
	// A new build: no policy, a disabled one, or one that needs repair.
	op, err := p.newOpLocked(b, OpEnableTTL, u.Group, u.Field, offMs, now)
	if err != nil {
		p.mu.Unlock()
		return Operation{}, err
	}
	op.State, op.Estimate = string(Creating), estimate
	pc := &policyRecord{Group: u.Group, Field: u.Field, OffsetMs: offMs, State: string(Creating), Op: op.Seq, Updated: now.UnixMilli()}
	if err := p.commitPolicyOp(b, pc, op); err != nil {
		p.mu.Unlock()
		return Operation{}, err
	}
	p.setRuleLocked(u.Group, rule)
	p.mu.Unlock()
	p.registerPolicySource(u.Group, u.Field)
	p.wakeNow()
	p.kickPolicies()
	return op.operation(), nil
}

// commitPolicyOp writes pol and the new operation op (and the running
// operation a change supersedes, if any) into b and commits it; p.mu is
// held.
func (p *Manager) commitPolicyOp(b *storage.Batch, pol *policyRecord, op *opRecord, more ...*opRecord) error {
	err := putPolicy(b, pol)
	for _, r := range append([]*opRecord{op}, more...) {
		if err == nil && r != nil {
			err = putOp(b, r)
		}
	}
	if err == nil {
		err = p.commitLocked(b, pol, append([]*opRecord{op}, more...)...)
	}
	if err != nil {
		return fmt.Errorf("docdb: update TTL policy: %w", err)
	}
	p.opCommittedLocked(op)
	return nil
}

// disablePolicy is UpdatePolicy's disable; p.update is held.
func (p *Manager) disablePolicy(u Update) (Operation, error) {
	cur := p.policyCopy(u.Group)
	switch {
	case cur == nil:
		return Operation{}, fmt.Errorf("%w: collection group %q has no TTL policy", ErrNotFound, u.Group)
	case cur.Field != u.Field:
		return Operation{}, fmt.Errorf("%w: the TTL policy of collection group %q is on field %q, not %q",
			ErrNotFound, u.Group, cur.Field, u.Field)
	}
	now := p.Now()
	b := p.Store.NewBatch()
	defer b.Close()
	p.mu.Lock()
	op, err := p.newOpLocked(b, OpDisableTTL, u.Group, u.Field, cur.OffsetMs, now)
	if err != nil {
		p.mu.Unlock()
		return Operation{}, err
	}
	op.finish(Disabled, "", now)
	var superseded *opRecord
	if running := p.ops[uint64(cur.Op)]; running != nil && !running.Done {
		s := *running
		s.finish(Disabled, "superseded by "+opID(uint64(op.Seq)), now)
		superseded = &s
	}
	pc := *cur
	if cur.state().enabled() {
		pc.State, pc.Updated = string(Disabled), now.UnixMilli()
	}
	pc.Op = op.Seq
	if err := p.commitPolicyOp(b, &pc, op, superseded); err != nil {
		p.mu.Unlock()
		return Operation{}, err
	}
	p.setRuleLocked(u.Group, nil)
	p.mu.Unlock()
	p.unregisterPolicySource(u.Group)
	if err := p.dropGroupIndexes(u.Group); err != nil {
		// Deletion has stopped; the leftover entries are dropped at the next
		// Open.
		p.Logger.Error("docdb: drop hidden TTL policy indexes", "group", u.Group, "err", err)
	}
	return op.operation(), nil
}

// dropGroupIndexes drops the hidden indexes of group once its rule is
// unpublished: for each collection that has one, under its write lock, so
// that no build or creation adds one behind its back (both check the rule
// under the same locks).
func (p *Manager) dropGroupIndexes(group string) error {
	// A creation that saw the rule holds the catalog lock until its index is
	// published: taking it once is the barrier.
	ids := map[uint64]bool{}
	for _, c := range p.groupCollections(group) {
		ids[c.Meta.ID] = true
	}
	if m := p.indexes.Load(); m != nil {
		for id, ix := range *m {
			if ix.Group == group {
				ids[id] = true
			}
		}
	}
	var errs []error
	for id := range ids {
		c := p.lockCollByID(id)
		ix := p.IndexOf(id)
		if ix != nil && ix.Group == group {
			p.mu.Lock()
			p.setIndexLocked(id, nil)
			p.mu.Unlock()
			b := p.Store.NewBatch()
			err := deletePolicyIndex(b, ix)
			if err == nil {
				err = b.Commit()
			}
			b.Close()
			if err != nil {
				errs = append(errs, err)
			}
		}
		if c != nil {
			c.WriteMu.Unlock()
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// wakeNow wakes the sweeper: a policy change may make documents due now.
func (p *Manager) wakeNow() {
	if p.Expiry != nil {
		p.Expiry.Wake(time.Time{})
	}
}

// groupDocCount returns the number of documents in the group's
// collections.
func (p *Manager) groupDocCount(group string) int64 {
	var n int64
	for _, c := range p.groupCollections(group) {
		docs, _, _ := c.Stats.Snapshot()
		n += docs
	}
	return n
}

// DryRunPolicy previews enabling u, changing nothing, as collMod's dry run
// previews a TTL change (DryRun): WouldExpire counts the documents of
// the group that no rule expires now (TTL indexes, a clustered
// collection's TTL, the group's current policy) and the changed policy
// would, with the range of their expiry times and the expiry engine's
// estimate of how long deleting them takes. It fails as UpdatePolicy would
// (invalid, conflicting field, limit). Collections whose complete hidden
// index is on the same field read only the entries the change makes due;
// the others are scanned, on a snapshot, without locks.
func (p *Manager) DryRunPolicy(ctx context.Context, u Update) (EnableDryRun, error) {
	if err := validatePolicyUpdate(u); err != nil {
		return EnableDryRun{}, err
	}
	if !u.Enable {
		return EnableDryRun{}, fmt.Errorf("%w: a dry run previews enabling a policy (disabling deletes nothing)", ErrInvalid)
	}
	if _, err := p.checkEnable(u); err != nil {
		return EnableDryRun{}, err
	}
	now := p.Now()
	cnt := dueCount{nowMs: now.UnixMilli(), cur: p.RuleFor(u.Group), next: NewRule(u.Group, u.Field, u.Offset.Milliseconds())}
	colls := p.groupCollections(u.Group)
	for _, c := range colls {
		if err := p.previewPolicy(ctx, c, &cnt); err != nil {
			return EnableDryRun{}, err
		}
	}
	res := EnableDryRun{Group: u.Group, Field: u.Field, Offset: u.Offset, Collections: len(colls), Scanned: cnt.scanned,
		DryRun: DryRun{At: now.UTC(), WouldExpire: cnt.n, Estimated: true}}
	if cnt.n > 0 {
		res.OldestDue, res.NewestDue = time.UnixMilli(cnt.oldest).UTC(), time.UnixMilli(cnt.newest).UTC()
		res.Estimated = false
		if est, ok := p.Expiry.(DurationEstimator); ok {
			if d := est.EstimateDuration(cnt.n); d > 0 {
				res.EstimatedDelete, res.Estimated = d, true
			}
		}
	}
	return res, nil
}

// dueCount accumulates a policy dry run: documents not expired under the
// collection's rules and the current policy cur, expired under next.
type dueCount struct {
	nowMs          int64
	cur, next      *Rule
	scanned, n     int64
	oldest, newest int64
}

// add counts doc of a collection with metadata m if the change expires it.
func (p *dueCount) add(m *catalog.CollMeta, doc bson.D) {
	p.scanned++
	if m.Expired(doc, p.nowMs) || p.cur.Expired(doc, p.nowMs) {
		return
	}
	due, ok := p.next.DueTime(doc)
	if !ok || due > p.nowMs {
		return
	}
	if p.n == 0 || due < p.oldest {
		p.oldest = due
	}
	if p.n == 0 || due > p.newest {
		p.newest = due
	}
	p.n++
}

// previewPolicy adds c's documents to p, on a snapshot taken with c's
// metadata.
func (p *Manager) previewPolicy(ctx context.Context, c *catalog.Collection, cnt *dueCount) error {
	p.CatalogMu.RLock()
	m := c.Meta
	snap := p.Store.NewSnapshot()
	p.CatalogMu.RUnlock()
	defer snap.Close()
	if m == nil || c.Dropped {
		return nil
	}
	var lo, hi []byte
	indexed := false
	if ix := p.IndexOf(m.ID); ix != nil && ix.Complete && cnt.cur != nil && ix.Field == cnt.next.field && cnt.cur.field == ix.Field {
		// Same field: only entries the new offset makes due and the
		// current one does not are candidates.
		indexed = true
		if cnt.next.offsetMs >= cnt.cur.offsetMs {
			return nil
		}
		lo = binary.BigEndian.AppendUint64(catalog.IndexPrefix(ix.ID), policyDateKey(cnt.nowMs-cnt.cur.offsetMs+1))
		_, hi = DueRange(ix.ID, cnt.nowMs-cnt.next.offsetMs)
	} else {
		lo = catalog.DocPrefix(m.ID)
		hi = storage.PrefixEnd(lo)
	}
	it, err := snap.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw := it.Value()
		if indexed {
			_, idEnc, err := policyEntry(it.Key())
			if err != nil {
				return err
			}
			if raw, err = snap.Get(catalog.DocKey(m.ID, idEnc)); errors.Is(err, storage.ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
		}
		sd, err := stored.New(append([]byte(nil), raw...))
		if err != nil {
			return fmt.Errorf("docdb: stored document %x: %w", it.Key(), err)
		}
		cnt.add(m, sd.Doc)
	}
	return it.Error()
}
