package docdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// The dry runs of collMod and createIndexes: they validate the change as
// the real command does, then preview its effect on expiry (a DryRun)
// instead of applying it.

// collModCandidates returns the TTL rules of next whose due times differ
// from cur's: the changed indexes that are (still) usable TTL indexes, and
// the clustered collection's own TTL when its value changed.
func collModCandidates(cur, next *catalog.CollMeta, changed []*catalog.IndexMeta) []*catalog.IndexMeta {
	var out []*catalog.IndexMeta
	for _, ix := range changed {
		if ix.TTL && ix.TTLValid && len(ix.Fields) == 1 && !ix.IsID {
			out = append(out, ix)
		}
	}
	was, now := cur.ClusteredTTLIndex(), next.ClusteredTTLIndex()
	if now != nil && (was == nil || was.ExpireAfter != now.ExpireAfter) {
		out = append(out, now)
	}
	return out
}

// collModDryRun previews a validated collMod on snap, a snapshot taken
// with cur: it reads the Date entries of each candidate rule up to its new
// cut-off and applies the exact rule to each document once.
func (e *Engine) collModDryRun(ctx context.Context, snap *storage.Snapshot, cur, next *catalog.CollMeta, candidates []*catalog.IndexMeta, now time.Time) (policy.DryRun, error) {
	p := policy.NewPreview(cur, next, now)
	seen := map[string]struct{}{}
	for _, ix := range candidates {
		cutoff := p.NowMs - ix.ExpireAfter*1000
		lo, hi, err := dateRange(ix, cutoff, false)
		if err != nil {
			return policy.DryRun{}, err
		}
		if err := e.previewRange(ctx, snap, cur, ix, lo, hi, seen, p); err != nil {
			return policy.DryRun{}, err
		}
	}
	return p.Result(e.opts.Expiry), nil
}

// previewRange adds the documents of the entries of ix in [lo, hi) to p.
func (e *Engine) previewRange(ctx context.Context, snap *storage.Snapshot, cur *catalog.CollMeta, ix *catalog.IndexMeta, lo, hi []byte, seen map[string]struct{}, p *policy.Preview) error {
	it, err := snap.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, idEnc, err := entryDate(ix, it.Key())
		if err != nil {
			return err
		}
		if _, dup := seen[string(idEnc)]; dup {
			continue
		}
		seen[string(idEnc)] = struct{}{}
		var raw []byte
		if ix.ClusterColl != 0 {
			raw = append([]byte(nil), it.Value()...)
		} else if raw, err = snap.Get(catalog.DocKey(cur.ID, idEnc)); errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		sd, err := stored.New(raw)
		if err != nil {
			return fmt.Errorf("docdb: stored document: %w", err)
		}
		p.Add(sd.Doc)
	}
	return it.Error()
}

// CreateIndexesDryRun is createIndexes with dryRun: true: it fails exactly
// as CreateIndexes would (67, 85, 86, and 11000 or 171 for a build that
// would fail), and otherwise returns what CreateIndexes would reply and the
// preview of the new TTL indexes, changing nothing (a missing collection is
// not created; the result says it would be). CollMod takes
// CollModRequest.DryRun and returns the preview's Fields before its own.
func (e *Engine) CreateIndexesDryRun(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, policy.DryRun, error) {
	return e.createIndexesDryRun(ctx, db, coll, specs)
}

// createIndexesDryRun checks specs exactly as createIndexes does,
// simulates the build over a snapshot of the collection (reporting the
// build's failures) and previews the new TTL indexes, writing nothing.
func (e *Engine) createIndexesDryRun(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, policy.DryRun, error) {
	var res CreateIndexesResult
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return res, policy.DryRun{}, err
	}
	view := e.openRead(db, coll)
	defer view.close()
	now := e.opts.Now()
	meta := view.meta
	reqs := make([]*indexRequest, len(specs))
	for i, s := range specs {
		var err error
		if reqs[i], err = s.request(meta); err != nil {
			return res, policy.DryRun{}, err
		}
	}
	if meta == nil {
		// The real command would create the collection with its _id_ index.
		id, err := catalog.IndexFromSpec(0, catalog.IDIndexSpec())
		if err != nil {
			return res, policy.DryRun{}, err
		}
		meta = &catalog.CollMeta{DB: db, Name: coll, Options: bson.D{}, Indexes: []*catalog.IndexMeta{id}}
		res.CreatedCollectionAutomatically = true
	}
	res.NumIndexesBefore = len(meta.Indexes)
	build, err := indexesToBuild(meta, reqs)
	if err != nil {
		return res, policy.DryRun{}, err
	}
	res.NumIndexesAfter = res.NumIndexesBefore + len(build)
	if len(build) == 0 {
		res.Note = "all indexes already exist"
		return res, policy.NewPreview(meta, meta, now).Result(e.opts.Expiry), nil
	}
	newIdx := make([]*catalog.IndexMeta, len(build))
	for i, r := range build {
		ix, err := catalog.IndexFromSpec(0, r.spec)
		if err != nil {
			return res, policy.DryRun{}, err
		}
		newIdx[i] = ix
	}
	next := meta.WithIndexes(append(append([]*catalog.IndexMeta(nil), meta.Indexes...), newIdx...))
	p := policy.NewPreview(meta, next, now)
	if view.meta != nil {
		if err := e.simulateBuild(ctx, view.snap, meta, newIdx, p); err != nil {
			return res, policy.DryRun{}, err
		}
	}
	return res, p.Result(e.opts.Expiry), nil
}

// simulateBuild reads every document of meta in snap as buildIndexes
// would, failing where the build would fail (keys that cannot be indexed,
// a duplicate in a new unique index between two documents visible at the
// start, as buildUniqueCheck decides), and adds each document to p.
func (e *Engine) simulateBuild(ctx context.Context, snap *storage.Snapshot, meta *catalog.CollMeta, newIdx []*catalog.IndexMeta, p *policy.Preview) error {
	vis := e.newVisibility(meta)
	vis.nowMs = p.NowMs
	held := make([]map[string]struct{}, len(newIdx))
	for i, ix := range newIdx {
		if ix.Unique {
			held[i] = map[string]struct{}{}
		}
	}
	pre := catalog.DocPrefix(meta.ID)
	it, err := snap.NewIter(pre, storage.PrefixEnd(pre))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		sd, err := stored.New(append([]byte(nil), it.Value()...))
		if err != nil {
			return fmt.Errorf("docdb: stored document: %w", err)
		}
		hidden := vis.Hides(sd.Doc)
		for i, ix := range newIdx {
			keys, _, err := ix.IndexKeys(sd.Doc)
			if err != nil {
				return buildFailed(meta, err)
			}
			if held[i] == nil || hidden {
				continue
			}
			for _, k := range keys {
				if _, dup := held[i][string(k.Enc)]; dup {
					return buildFailed(meta, dupKeyError(meta, ix, catalog.ToKeyDoc(ix, k.Values)))
				}
				held[i][string(k.Enc)] = struct{}{}
			}
		}
		p.Add(sd.Doc)
	}
	return it.Error()
}
