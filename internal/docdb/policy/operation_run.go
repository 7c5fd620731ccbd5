package policy

import (
	"context"
	"sort"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// The policy worker: one goroutine, started when there is work (an
// unfinished operation, a collection that joined a group with an enabled
// policy) and gone when there is none, so an engine without policies runs
// no goroutine. It runs enable operations one at a time, oldest first, then
// builds the hidden indexes that active policies lack. Close cancels it;
// an operation cut short resumes at the next Open.

// kickPolicies asks the worker to look for work, starting it if needed.
func (p *Manager) kickPolicies() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.policies == nil {
		return
	}
	p.dirty = true
	if p.running {
		return
	}
	p.running = true
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.wg.Add(1)
	go p.policyWorker(ctx, cancel)
}

func (p *Manager) policyWorker(ctx context.Context, cancel context.CancelFunc) {
	defer p.wg.Done()
	defer cancel()
	for {
		p.mu.Lock()
		if !p.dirty || p.closed {
			p.running, p.cancel = false, nil
			p.mu.Unlock()
			return
		}
		p.dirty = false
		p.mu.Unlock()
		p.policyWork(ctx)
	}
}

// policyWork runs the pending operations, then builds what active policies
// lack.
func (p *Manager) policyWork(ctx context.Context) {
	for ctx.Err() == nil {
		seq := p.nextPendingOp()
		if seq == 0 {
			break
		}
		p.runEnableOp(ctx, seq)
	}
	if ctx.Err() == nil {
		p.reconcilePolicies(ctx)
	}
}

// nextPendingOp returns the oldest unfinished enable operation, or 0.
func (p *Manager) nextPendingOp() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best uint64
	for s, r := range p.ops {
		if !r.Done && OperationType(r.Type) == OpEnableTTL && (best == 0 || s < best) {
			best = s
		}
	}
	return best
}

// opFields returns the group and field of operation seq, and whether it is
// still running.
func (p *Manager) opFields(seq uint64) (group, field string, running bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.ops[seq]
	if !ok {
		return "", "", false
	}
	return r.Group, r.Field, !r.Done
}

// runEnableOp builds the hidden index of every collection of the
// operation's group, then marks it ACTIVE; on failure it marks it
// NEEDS_REPAIR. It returns early, leaving the operation to resume, only
// when ctx is done.
func (p *Manager) runEnableOp(ctx context.Context, seq uint64) {
	for {
		group, field, running := p.opFields(seq)
		if !running {
			return // superseded by a later change
		}
		todo := p.unindexed(group, field)
		if len(todo) == 0 {
			break
		}
		for _, c := range todo {
			err := p.buildPolicyIndex(ctx, c, group, field, seq)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				p.endOp(seq, NeedsRepair, err.Error())
				return
			}
		}
	}
	p.endOp(seq, Active, "")
}

// unindexed returns the collections of group without a complete hidden
// index on field.
func (p *Manager) unindexed(group, field string) []*catalog.Collection {
	var out []*catalog.Collection
	for _, c := range p.groupCollections(group) {
		ix := p.IndexOf(c.Meta.ID)
		if ix == nil || ix.Group != group || ix.Field != field || !ix.Complete {
			out = append(out, c)
		}
	}
	return out
}

// endOp finishes operation seq in state st (ACTIVE or NEEDS_REPAIR) with
// the policy it builds, unless a later change superseded it.
func (p *Manager) endOp(seq uint64, st State, msg string) {
	p.update.Lock()
	defer p.update.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	op, ok := p.ops[seq]
	if !ok || op.Done {
		return
	}
	now := p.Now()
	b := p.Store.NewBatch()
	defer b.Close()
	oc := *op
	oc.finish(st, msg, now)
	var pc *policyRecord
	if pol := p.policies[op.Group]; pol != nil && uint64(pol.Op) == seq {
		cp := *pol
		cp.State, cp.Updated = string(st), now.UnixMilli()
		pc = &cp
		if err := putPolicy(b, pc); err != nil {
			p.Logger.Error("docdb: finish TTL policy operation", "op", opID(seq), "err", err)
			return
		}
	}
	err := putOp(b, &oc)
	if err == nil {
		err = p.commitLocked(b, pc, &oc)
	}
	if err != nil && ignoreClosed(err) != nil {
		p.Logger.Error("docdb: finish TTL policy operation", "op", opID(seq), "err", err)
	}
}

// reconcilePolicies builds the hidden indexes active policies lack:
// collections renamed into a group.
func (p *Manager) reconcilePolicies(ctx context.Context) {
	p.mu.Lock()
	var active []*policyRecord
	for _, r := range p.policies {
		if r.state() == Active {
			c := *r
			active = append(active, &c)
		}
	}
	p.mu.Unlock()
	sort.Slice(active, func(i, j int) bool { return active[i].Group < active[j].Group })
	for _, r := range active {
		for _, c := range p.unindexed(r.Group, r.Field) {
			if err := p.buildPolicyIndex(ctx, c, r.Group, r.Field, 0); err != nil {
				if ctx.Err() == nil && ignoreClosed(err) != nil {
					p.Logger.Error("docdb: build hidden TTL policy index", "collection", c.Meta.DB+"."+c.Meta.Name, "err", err)
				}
				return
			}
		}
	}
}

// policyDeleted counts deletions by group's policy into its running
// operation.
func (p *Manager) policyDeleted(group string, n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pol := p.policies[group]
	if pol == nil {
		return
	}
	if op := p.ops[uint64(pol.Op)]; op != nil && !op.Done {
		op.Deleted += n
	}
}

// WorkerRunning reports whether the worker goroutine is running.
func (p *Manager) WorkerRunning() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}
