package docdb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// collMod: validator options, a clustered collection's TTL, and per index
// hidden and expireAfterSeconds. Changing a TTL is metadata only: expiry is
// computed from the stored dates plus the current offset, so the change
// applies to old documents at once (visibility and reaping alike) and
// rewrites nothing. With DryRun the command is validated in full and then
// previewed instead of applied (dryrun.go).

func (e *Engine) collMod(ctx context.Context, db, coll string, req CollModRequest) (bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	c := e.lockColl(db, coll)
	if c == nil {
		return nil, mongoerr.Newf(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	locked := true
	defer func() {
		if locked {
			c.WriteMu.Unlock()
		}
	}()
	meta := c.Meta
	next, changedIdx, reply, err := collModNext(meta, req)
	if err != nil {
		return nil, err
	}
	if req.DryRun {
		// The change is valid: preview it on a snapshot that matches meta
		// (no writer of c runs while its lock is held) without the lock.
		e.mu.RLock()
		snap := e.store.NewSnapshot()
		e.mu.RUnlock()
		defer snap.Close()
		c.WriteMu.Unlock()
		locked = false
		dr, err := e.collModDryRun(ctx, snap, meta, next, collModCandidates(meta, next, changedIdx), e.opts.Now())
		if err != nil {
			return nil, err
		}
		return append(dr.Fields(), reply...), nil
	}
	recs, err := e.modifyRecord(meta, next, req, changedIdx)
	if err != nil {
		return nil, err
	}
	if err := e.commitCollMod(c, next, recs); err != nil {
		return nil, err
	}
	if len(changedIdx) > 0 {
		e.indexesChanged(next, changedIdx)
	}
	e.registerClustered(next)
	return reply, nil
}

// collModNext returns meta as req changes it, the indexes that changed and
// the reply's fields.
func collModNext(meta *catalog.CollMeta, req CollModRequest) (*catalog.CollMeta, []*catalog.IndexMeta, bson.D, error) {
	next := *meta
	reply := bson.D{}
	if req.ExpireAfterSeconds != nil {
		if !meta.Clustered() {
			return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions,
				"collMod: expireAfterSeconds is only supported on clustered and time-series collections")
		}
		if err := req.ExpireAfterSeconds.Invalid; err != nil {
			return nil, nil, nil, err
		}
		opts := withoutField(next.Options, "expireAfterSeconds")
		if !req.ExpireAfterSeconds.Off {
			opts = append(opts, bson.E{Key: "expireAfterSeconds", Value: req.ExpireAfterSeconds.Seconds})
		}
		next.Options = opts
	}
	if req.Validation.given() {
		opts := req.Validation.replaceIn(next.Options)
		val, err := catalog.ParseValidationOptions(opts)
		if err != nil {
			return nil, nil, nil, err
		}
		next.Options = opts
		next.Validation = val
	}
	if req.PreAndPostImages != nil {
		opts := withoutField(next.Options, "changeStreamPreAndPostImages")
		if *req.PreAndPostImages {
			opts = append(opts, bson.E{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}})
		}
		next.Options = opts
	}
	if err := collModCapped(&next, req); err != nil {
		return nil, nil, nil, err
	}
	var changedIdx []*catalog.IndexMeta
	if req.Index != nil {
		idx, changed, fields, err := modIndex(meta, req.Index)
		if err != nil {
			return nil, nil, nil, err
		}
		reply = append(reply, fields...)
		next.Indexes = idx
		changedIdx = changed
	}
	return &next, changedIdx, reply, nil
}

// commitCollMod stores next as c's record, with the change-log records
// recs, and publishes it. The caller holds c's write lock.
func (e *Engine) commitCollMod(c *catalog.Collection, next *catalog.CollMeta, recs [][]byte) error {
	b := e.store.NewBatch()
	defer b.Close()
	if err := catalog.PutRecord(b, next); err != nil {
		return err
	}
	e.mu.Lock()
	err := e.commitLogged(b, recs)
	if err == nil {
		c.Meta = next
	}
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("docdb: collMod %s.%s: %w", next.DB, next.Name, err)
	}
	return nil
}

// withoutField returns d without the field key.
func withoutField(d bson.D, key string) bson.D {
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}

// modIndex applies collMod's index argument; it returns the new index list,
// the indexes that changed, and the reply fields.
func modIndex(meta *catalog.CollMeta, req *CollModIndex) ([]*catalog.IndexMeta, []*catalog.IndexMeta, bson.D, error) {
	target, err := collModTarget(meta, req)
	if err != nil {
		return nil, nil, nil, err
	}
	spec := append(bson.D(nil), target.Spec...)
	reply := bson.D{}
	if req.Hidden != nil {
		if target.IsID && meta.Clustered() {
			return nil, nil, nil, mongoerr.New(mongoerr.Location6011800, "The 'hidden' option is not supported for a clusteredIndex")
		}
		if spec, reply, err = modIndexHidden(target, *req.Hidden, spec, reply); err != nil {
			return nil, nil, nil, err
		}
	}
	if req.ExpireAfterSeconds != nil {
		if _, capped := meta.Capped(); capped {
			return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "TTL indexes are not supported for capped collections.")
		}
		if spec, reply, err = modIndexTTL(target, *req.ExpireAfterSeconds, spec, reply); err != nil {
			return nil, nil, nil, err
		}
	}
	changed, err := catalog.IndexFromSpec(target.ID, spec)
	if err != nil {
		return nil, nil, nil, err
	}
	changed.Ready, changed.Multikey = target.Ready, target.Multikey
	idx := make([]*catalog.IndexMeta, len(meta.Indexes))
	for i, ix := range meta.Indexes {
		idx[i] = ix
		if ix.ID == target.ID {
			idx[i] = changed
		}
	}
	return idx, []*catalog.IndexMeta{changed}, reply, nil
}

// collModTarget finds the index collMod's index argument names, by name or
// by key pattern.
func collModTarget(meta *catalog.CollMeta, req *CollModIndex) (*catalog.IndexMeta, error) {
	if req.KeyPattern == nil {
		target := meta.Index(req.Name)
		if target == nil {
			return nil, mongoerr.Newf(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", req.Name, meta.DB, meta.Name)
		}
		return target, nil
	}
	var found []*catalog.IndexMeta
	for _, ix := range meta.Indexes {
		if catalog.SameDoc(ix.Key, req.KeyPattern) {
			found = append(found, ix)
		}
	}
	switch len(found) {
	case 0:
		return nil, mongoerr.Newf(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", fmtDoc(req.KeyPattern), meta.DB, meta.Name)
	case 1:
		return found[0], nil
	}
	return nil, mongoerr.Newf(mongoerr.AmbiguousIndexKeyPattern,
		"index keyPattern %s matches %d indexes, must use index name. Conflicting indexes: %s",
		fmtDoc(req.KeyPattern), len(found), specList(found))
}

// modIndexHidden applies hidden to target's spec and adds hidden_old/_new
// to reply when it changes.
func modIndexHidden(target *catalog.IndexMeta, hidden bool, spec, reply bson.D) (bson.D, bson.D, error) {
	if target.IsID {
		return nil, nil, mongoerr.New(mongoerr.InvalidOptions, "can't hide _id index")
	}
	if hidden != target.Hidden {
		reply = append(reply, bson.E{Key: "hidden_old", Value: target.Hidden}, bson.E{Key: "hidden_new", Value: hidden})
	}
	spec = withoutField(spec, "hidden")
	if hidden {
		spec = append(spec, bson.E{Key: "hidden", Value: true})
	}
	return spec, reply, nil
}

// modIndexTTL applies expireAfterSeconds n to target's spec and adds
// expireAfterSeconds_old (for a TTL index) and _new to reply.
func modIndexTTL(target *catalog.IndexMeta, n int64, spec, reply bson.D) (bson.D, bson.D, error) {
	if target.IsID {
		return nil, nil, mongoerr.New(mongoerr.InvalidOptions, "the _id field does not support TTL indexes")
	}
	if !target.TTL && len(target.Fields) > 1 {
		return nil, nil, mongoerr.New(mongoerr.InvalidOptions,
			"TTL indexes are single-field indexes, compound indexes do not support TTL")
	}
	if target.TTL {
		old, _ := catalog.FieldOf(target.Spec, "expireAfterSeconds")
		if !catalog.IsNumber(old) {
			return nil, nil, mongoerr.New(mongoerr.InvalidOptions, "existing expireAfterSeconds field is not a number")
		}
		oldN, valid := catalog.StoredExpireAfter(old)
		if !valid {
			oldN = 0
		}
		reply = append(reply, bson.E{Key: "expireAfterSeconds_old", Value: oldN})
	}
	reply = append(reply, bson.E{Key: "expireAfterSeconds_new", Value: n})
	if _, present := catalog.FieldOf(spec, "expireAfterSeconds"); present {
		for i := range spec {
			if spec[i].Key == "expireAfterSeconds" {
				spec[i].Value = int32(n)
			}
		}
	} else {
		spec = append(spec, bson.E{Key: "expireAfterSeconds", Value: int32(n)})
	}
	return spec, reply, nil
}

// specList renders index specs for messages.
func specList(ix []*catalog.IndexMeta) string {
	s := ""
	for i, x := range ix {
		if i > 0 {
			s += ", "
		}
		s += fmtDoc(x.Spec)
	}
	return s
}
