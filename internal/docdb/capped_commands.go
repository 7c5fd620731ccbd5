package docdb

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
)

// The commands that make capped collections out of others:
// cloneCollectionAsCapped copies a collection into a new capped one (its
// options, with the capped bound; its documents in the source's scan
// order, without validation, the bound applied as they go in; no
// secondary index), and convertToCapped clones into a temporary
// collection that then replaces the source, as MongoDB does.

func (e *Engine) cloneCollectionAsCapped(ctx context.Context, db, from, to string, size int64) error {
	if err := catalog.CheckReadNS(db, from); err != nil {
		return err
	}
	if err := catalog.CheckCreateNS(db, to); err != nil {
		return err
	}
	view := e.openRead(db, from)
	defer view.close()
	if view.meta == nil {
		return mongoerr.Newf(mongoerr.NamespaceNotFound, "source collection %s.%s does not exist", db, from)
	}
	bound := catalog.Capped{MaxSize: catalog.RoundCappedSize(size)}
	if src, ok := view.meta.Capped(); ok {
		bound.MaxDocs = src.MaxDocs
	}
	options := catalog.WithCapped(view.meta.Options, bound)
	e.ddl.Lock()
	if e.lookupColl(db, to) != nil {
		e.ddl.Unlock()
		return mongoerr.Newf(mongoerr.NamespaceExists,
			"cloneCollectionAsCapped failed - destination collection %s.%s already exists. source collection: %s.%s", db, to, db, from)
	}
	c, err := e.createLocked(db, to, options)
	e.ddl.Unlock()
	if err != nil {
		return err
	}
	p, err := plan.Choose(view.meta, plan.Request{Natural: 1})
	if err != nil {
		return err
	}
	stats := &plan.Stats{}
	sc := plan.NewScanner(view.snap, p, stats)
	defer sc.Close()
	vis := e.newVisibility(view.meta)
	m := &plan.Matcher{Scanner: sc, Vis: &vis, Stats: stats}
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped {
		return nil
	}
	w := e.newWriter(c)
	defer w.close()
	for {
		d, err := m.Next(ctx)
		if err != nil {
			return err
		}
		if d == nil {
			break
		}
		if int64(len(d.Stored.Raw)) > bound.MaxSize {
			// It would not fit: MongoDB skips what cannot be kept.
			continue
		}
		if err := w.insert(d.Stored); err != nil {
			return err
		}
		if w.full() {
			if err := w.commit(); err != nil {
				return err
			}
		}
	}
	return w.finish()
}

func (e *Engine) convertToCapped(ctx context.Context, db, coll string, size int64) error {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return err
	}
	if e.lookupColl(db, coll) == nil {
		return mongoerr.Newf(mongoerr.NamespaceNotFound, "source collection %s.%s does not exist", db, coll)
	}
	var tmp string
	for {
		tmp = fmt.Sprintf("tmp%05d.convertToCapped.%s", rand.IntN(100000), coll)
		if e.lookupColl(db, tmp) == nil {
			break
		}
	}
	if err := e.cloneCollectionAsCapped(ctx, db, coll, tmp, size); err != nil {
		return err
	}
	return e.renameCollection(ctx, db, tmp, db, coll, true)
}

// collModCapped applies collMod's cappedSize and cappedMax to next: the
// new bound applies from the next insert, which removes what is then
// over it.
func collModCapped(next *catalog.CollMeta, req CollModRequest) error {
	if req.CappedSize == nil && req.CappedMax == nil {
		return nil
	}
	bound, ok := next.Capped()
	if !ok {
		return mongoerr.New(mongoerr.InvalidOptions, "Collection must be capped.")
	}
	if req.CappedSize != nil {
		bound.MaxSize = catalog.RoundCappedSize(*req.CappedSize)
	}
	if req.CappedMax != nil {
		bound.MaxDocs = catalog.AdjustCappedMax(*req.CappedMax)
	}
	next.Options = catalog.WithCapped(next.Options, bound)
	return nil
}

// cappedRefusesTTL refuses TTL indexes on a capped collection, which
// removes its documents by its bound only (MongoDB 7.0's rule).
func cappedRefusesTTL(meta *catalog.CollMeta, build []*indexRequest) error {
	if _, ok := meta.Capped(); !ok {
		return nil
	}
	for _, r := range build {
		if _, ttl := catalog.FieldOf(r.spec, "expireAfterSeconds"); ttl {
			return mongoerr.New(mongoerr.CannotCreateIndex, "Cannot create TTL index on a capped collection")
		}
	}
	return nil
}
