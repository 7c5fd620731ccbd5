package docdb

import (
	"context"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// collMod (spec 1.9): validator options, and per index hidden and
// expireAfterSeconds. Changing a TTL is metadata only: expiry is computed
// from the stored dates plus the current offset, so the change applies to
// old documents at once (visibility and reaping alike) and rewrites
// nothing. With dryRun: true the command is validated in full and then
// previewed instead of applied (dryrun.go).

func (e *Engine) collMod(ctx context.Context, db, coll string, cmd bson.D) (bson.D, error) {
	if err := checkReadNS(db, coll); err != nil {
		return nil, err
	}
	var valOpts bson.D
	var indexSpec bson.D
	hasIndex, dryRun := false, false
	for i, el := range cmd {
		if i == 0 && el.Key == "collMod" {
			continue
		}
		if genericFields[el.Key] {
			continue
		}
		switch el.Key {
		case "validator", "validationLevel", "validationAction":
			valOpts = append(valOpts, el)
		case "index":
			d, ok := el.Value.(bson.D)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch,
					"BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", typeName(el.Value))
			}
			indexSpec, hasIndex = d, true
		case "expireAfterSeconds":
			// Only clustered collections have a collection-level TTL;
			// checked below once the collection is known.
		case "dryRun":
			// mayfly's extension: validate, then preview (dryrun.go).
			var err error
			if dryRun, err = dryRunFlag("collMod", el.Value); err != nil {
				return nil, err
			}
		case "viewOn", "pipeline", "timeseries", "cappedSize", "cappedMax", "changeStreamPreAndPostImages":
			return nil, mongoerr.Newf(mongoerr.NotImplemented, "collMod %s is not supported", el.Key)
		default:
			return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field 'collMod.%s' is an unknown field.", el.Key)
		}
	}
	c := e.lockColl(db, coll)
	if c == nil {
		return nil, mongoerr.Newf(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	locked := true
	defer func() {
		if locked {
			c.wmu.Unlock()
		}
	}()
	meta := c.meta
	next := *meta
	reply := bson.D{}

	if v, ok := fieldOf(cmd, "expireAfterSeconds"); ok {
		if !meta.clustered() {
			return nil, mongoerr.New(mongoerr.InvalidOptions,
				"collMod: expireAfterSeconds is only supported on clustered and time-series collections")
		}
		opts := withoutField(next.options, "expireAfterSeconds")
		if s, isStr := v.(string); !isStr || s != "off" {
			n, err := collectionExpireAfter(v)
			if err != nil {
				return nil, err
			}
			opts = append(opts, bson.E{Key: "expireAfterSeconds", Value: n})
		}
		next.options = opts
	}
	if len(valOpts) > 0 {
		opts := next.options
		for _, el := range valOpts {
			opts = withoutField(opts, el.Key)
			opts = append(opts, el)
		}
		val, err := parseValidationOptions(opts)
		if err != nil {
			return nil, err
		}
		next.options = opts
		next.validation = val
	}
	var changedIdx []*indexMeta
	if hasIndex {
		idx, changed, fields, err := modIndex(meta, indexSpec)
		if err != nil {
			return nil, err
		}
		reply = append(reply, fields...)
		next.indexes = idx
		changedIdx = changed
	}
	if dryRun {
		// The change is valid: preview it on a snapshot that matches meta
		// (no writer of c runs while its lock is held) without the lock.
		e.mu.RLock()
		snap := e.store.NewSnapshot()
		e.mu.RUnlock()
		defer snap.Close()
		c.wmu.Unlock()
		locked = false
		dr, err := e.collModDryRun(ctx, snap, meta, &next, collModCandidates(meta, &next, changedIdx), e.opts.Now())
		if err != nil {
			return nil, err
		}
		return append(dr.Fields(), reply...), nil
	}
	b := e.store.NewBatch()
	defer b.Close()
	if err := putRecord(b, &next); err != nil {
		return nil, err
	}
	e.mu.Lock()
	err := b.Commit()
	if err == nil {
		c.meta = &next
	}
	e.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("docdb: collMod %s.%s: %w", db, coll, err)
	}
	if len(changedIdx) > 0 {
		e.indexesChanged(&next, changedIdx)
	}
	e.registerClustered(&next)
	return reply, nil
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
func modIndex(meta *collMeta, spec bson.D) ([]*indexMeta, []*indexMeta, bson.D, error) {
	nameV, hasName := fieldOf(spec, "name")
	keyV, hasKey := fieldOf(spec, "keyPattern")
	switch {
	case hasName && hasKey:
		return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "Cannot specify both key pattern and name.")
	case !hasName && !hasKey:
		return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "Must specify either index name or key pattern.")
	}
	expV, hasExp := fieldOf(spec, "expireAfterSeconds")
	hiddenV, hasHidden := fieldOf(spec, "hidden")
	for _, f := range []string{"unique", "prepareUnique", "forceNonUnique"} {
		if _, ok := fieldOf(spec, f); ok {
			return nil, nil, nil, mongoerr.Newf(mongoerr.NotImplemented, "collMod index %s is not supported", f)
		}
	}
	for _, e := range spec {
		switch e.Key {
		case "name", "keyPattern", "expireAfterSeconds", "hidden":
		default:
			return nil, nil, nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", e.Key)
		}
	}
	if !hasExp && !hasHidden {
		return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "no expireAfterSeconds, hidden, unique, or prepareUnique field")
	}
	var target *indexMeta
	if hasName {
		name, ok := nameV.(string)
		if !ok {
			return nil, nil, nil, mongoerr.Newf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.name' is the wrong type '%s', expected type 'string'", typeName(nameV))
		}
		target = meta.index(name)
		if target == nil {
			return nil, nil, nil, mongoerr.Newf(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", name, meta.db, meta.name)
		}
	} else {
		key, ok := keyV.(bson.D)
		if !ok {
			return nil, nil, nil, mongoerr.Newf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.keyPattern' is the wrong type '%s', expected type 'object'", typeName(keyV))
		}
		var found []*indexMeta
		for _, ix := range meta.indexes {
			if sameDoc(ix.key, key) {
				found = append(found, ix)
			}
		}
		switch len(found) {
		case 0:
			return nil, nil, nil, mongoerr.Newf(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", fmtDoc(key), meta.db, meta.name)
		case 1:
			target = found[0]
		default:
			return nil, nil, nil, mongoerr.Newf(mongoerr.AmbiguousIndexKeyPattern,
				"index keyPattern %s matches %d indexes, must use index name. Conflicting indexes: %s",
				fmtDoc(key), len(found), specList(found))
		}
	}
	spec2 := append(bson.D(nil), target.spec...)
	reply := bson.D{}
	if hasHidden {
		hidden, ok := hiddenV.(bool)
		if !ok {
			return nil, nil, nil, mongoerr.Newf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.hidden' is the wrong type '%s', expected type 'bool'", typeName(hiddenV))
		}
		if target.isID {
			return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "can't hide _id index")
		}
		if hidden != target.hidden {
			reply = append(reply, bson.E{Key: "hidden_old", Value: target.hidden}, bson.E{Key: "hidden_new", Value: hidden})
		}
		spec2 = withoutField(spec2, "hidden")
		if hidden {
			spec2 = append(spec2, bson.E{Key: "hidden", Value: true})
		}
	}
	if hasExp {
		n, err := collModExpireAfter(expV)
		if err != nil {
			return nil, nil, nil, err
		}
		if target.isID {
			return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "the _id field does not support TTL indexes")
		}
		if !target.ttl && len(target.fields) > 1 {
			return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions,
				"TTL indexes are single-field indexes, compound indexes do not support TTL")
		}
		if target.ttl {
			old, _ := fieldOf(target.spec, "expireAfterSeconds")
			if !isNumber(old) {
				return nil, nil, nil, mongoerr.New(mongoerr.InvalidOptions, "existing expireAfterSeconds field is not a number")
			}
			oldN, valid := storedExpireAfter(old)
			if !valid {
				oldN = 0
			}
			reply = append(reply, bson.E{Key: "expireAfterSeconds_old", Value: oldN})
		}
		reply = append(reply, bson.E{Key: "expireAfterSeconds_new", Value: n})
		if _, present := fieldOf(spec2, "expireAfterSeconds"); present {
			for i := range spec2 {
				if spec2[i].Key == "expireAfterSeconds" {
					spec2[i].Value = int32(n)
				}
			}
		} else {
			spec2 = append(spec2, bson.E{Key: "expireAfterSeconds", Value: int32(n)})
		}
	}
	changed, err := indexFromSpec(target.id, spec2)
	if err != nil {
		return nil, nil, nil, err
	}
	changed.ready, changed.multikey = target.ready, target.multikey
	idx := make([]*indexMeta, len(meta.indexes))
	for i, ix := range meta.indexes {
		idx[i] = ix
		if ix.id == target.id {
			idx[i] = changed
		}
	}
	return idx, []*indexMeta{changed}, reply, nil
}

// collModExpireAfter validates collMod's index expireAfterSeconds.
func collModExpireAfter(v any) (int64, error) {
	if !isNumber(v) {
		return 0, mongoerr.Newf(mongoerr.TypeMismatch,
			"BSON field 'collMod.index.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(v))
	}
	f, _ := toFloat(v)
	if math.IsNaN(f) {
		return 0, mongoerr.New(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
	}
	if f < 0 {
		return 0, mongoerr.New(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if f > math.MaxInt32 {
		return 0, mongoerr.Newf(mongoerr.InvalidOptions,
			"TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (2147483647) for secondary indexes, found %s", fmtNumber(v))
	}
	return int64(f), nil
}

// fmtNumber renders a number as mongod prints it in messages.
func fmtNumber(v any) string {
	if n, ok := toInt64(v); ok {
		return fmt.Sprint(n)
	}
	return aggregate.FormatValue(v)
}

// specList renders index specs for messages.
func specList(ix []*indexMeta) string {
	s := ""
	for i, x := range ix {
		if i > 0 {
			s += ", "
		}
		s += fmtDoc(x.spec)
	}
	return s
}
