package kv

import (
	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/storage"
)

// Exists counts the keys that exist; a key named twice counts twice. As in
// Redis it does not count as an access to them (see Touch).
func (tx *Tx) Exists(keys [][]byte) (int64, error) {
	var n int64
	for _, k := range keys {
		_, ok, err := tx.lookupRead(k)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// Del deletes keys and counts those that existed; each gets a `del` event.
func (tx *Tx) Del(keys [][]byte) (int64, error) {
	var n int64
	for _, k := range keys {
		m, ok, err := tx.Lookup(k)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		if err := tx.DeleteMeta(k, m); err != nil {
			return 0, err
		}
		tx.notify(ClassGeneric, "del", k)
		n++
	}
	return n, nil
}

// Type returns the type of key, TypeNone when missing; as in Redis it does
// not count as an access.
func (tx *Tx) Type(key []byte) (Type, error) {
	m, ok, err := tx.lookupRead(key)
	if err != nil || !ok {
		return TypeNone, err
	}
	return m.Type, nil
}

// Rename moves src to dst with its expiry, replacing dst (unless nx, where
// an existing dst makes it a no-op reported as false). Events:
// `rename_from` on src, `rename_to` on dst. The elements of a collection
// stay where they are: only the metadata record moves.
func (tx *Tx) Rename(src, dst []byte, nx bool) (bool, error) {
	m, ok, err := tx.Lookup(src)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, ErrNoSuchKey
	}
	if string(src) == string(dst) {
		return !nx, nil
	}
	dm, dok, err := tx.Lookup(dst)
	if err != nil {
		return false, err
	}
	if dok && nx {
		return false, nil
	}
	if err := tx.putMeta(tx.ldb, tx.pdb, dst, dm, dok, m); err != nil {
		return false, err
	}
	if err := tx.reindexHash(tx.pdb, dst, m); err != nil {
		return false, err
	}
	if err := tx.removeMeta(tx.pdb, src, m); err != nil {
		return false, err
	}
	tx.notify(ClassGeneric, "rename_from", src)
	tx.notify(ClassGeneric, "rename_to", dst)
	return true, nil
}

// removeMeta deletes the record of a key whose elements moved elsewhere.
func (tx *Tx) removeMeta(pdb byte, key []byte, m Meta) error {
	mm := m
	mm.Type = TypeString // the version is not dropped: it moved
	tx.delta[pdb].sub.del(m)
	tx.delta[pdb].bytes -= keyCost(len(key), m) - keyCost(len(key), mm) // its elements' cost moved too
	if m.Type == TypeStream {
		tx.streamGone(tx.logical(pdb), key)
	}
	return tx.deleteMeta(pdb, key, mm, false)
}

// Move moves key to logical database db with its expiry; it reports false
// when key is missing or already exists there. Events: `move_from` in the
// source database, `move_to` in the target.
func (tx *Tx) Move(key []byte, db int) (bool, error) {
	if db < 0 || db >= NumDBs {
		return false, ErrDBIndex
	}
	if db == tx.ldb {
		return false, ErrSameObject
	}
	m, ok, err := tx.Lookup(key)
	if err != nil || !ok {
		return false, err
	}
	srcL, srcP := tx.ldb, tx.pdb
	dstP := tx.dbmap[db]
	if err := tx.Use(db); err != nil {
		return false, err
	}
	_, dok, err := tx.Lookup(key)
	tx.Use(srcL)
	if err != nil || dok {
		return false, err
	}
	nm := m
	if m.Type != TypeString {
		nm.Version = tx.NewVersion()
		if err := tx.copyElements(srcP, m.Version, dstP, nm.Version); err != nil {
			return false, err
		}
	}
	if err := tx.putMeta(db, dstP, key, Meta{}, false, nm); err != nil {
		return false, err
	}
	if err := tx.reindexHash(dstP, key, nm); err != nil {
		return false, err
	}
	if err := tx.deleteMeta(srcP, key, m, false); err != nil {
		return false, err
	}
	tx.notify(ClassGeneric, "move_from", key)
	tx.notifyDB(db, ClassGeneric, "move_to", key)
	return true, nil
}

// Copy copies src to dst in logical database db with its expiry. An
// existing dst is replaced only with replace; otherwise the result is
// false. The event is `copy_to` on dst.
func (tx *Tx) Copy(src, dst []byte, db int, replace bool) (bool, error) {
	if db < 0 || db >= NumDBs {
		return false, ErrDBIndex
	}
	if db == tx.ldb && string(src) == string(dst) {
		return false, ErrSameObject
	}
	m, ok, err := tx.LookupRead(src)
	if err != nil || !ok {
		return false, err
	}
	srcL, srcP := tx.ldb, tx.pdb
	dstP := tx.dbmap[db]
	tx.Use(db)
	dm, dok, err := tx.Lookup(dst)
	tx.Use(srcL)
	if err != nil {
		return false, err
	}
	if dok && !replace {
		return false, nil
	}
	nm := m
	if m.Type != TypeString {
		nm.Version = tx.NewVersion()
		if err := tx.copyElements(srcP, m.Version, dstP, nm.Version); err != nil {
			return false, err
		}
	}
	if dok {
		// The old dst goes entirely (its expiry included) before the copy.
		if err := tx.deleteMeta(dstP, dst, dm, false); err != nil {
			return false, err
		}
	}
	if err := tx.putMeta(db, dstP, dst, Meta{}, false, nm); err != nil {
		return false, err
	}
	if err := tx.reindexHash(dstP, dst, nm); err != nil {
		return false, err
	}
	tx.notifyDB(db, ClassGeneric, "copy_to", dst)
	return true, nil
}

// copyElements duplicates the sub-keys of one collection version.
func (tx *Tx) copyElements(srcP byte, srcV uint64, dstP byte, dstV uint64) error {
	lo := subPrefix(srcP, srcV)
	it, err := tx.batch().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	type kvPair struct{ k, v []byte }
	var pairs []kvPair
	for ok := it.First(); ok; ok = it.Next() {
		pairs = append(pairs, kvPair{append([]byte(nil), it.Key()[len(lo):]...), append([]byte(nil), it.Value()...)})
	}
	if err := it.Close(); err != nil {
		return err
	}
	dlo := subPrefix(dstP, dstV)
	for _, p := range pairs {
		if err := tx.batch().Set(append(append([]byte(nil), dlo...), p.k...), p.v); err != nil {
			return err
		}
	}
	return nil
}

// Keys returns the live keys of the current database matching pattern.
func (tx *Tx) Keys(pattern []byte) ([][]byte, error) {
	lo := metaPrefix(tx.pdb)
	hi := storage.PrefixEnd(lo)
	if pre := glob.LiteralPrefix(pattern); len(pre) > 0 {
		lo = append(lo, pre...)
		hi = storage.PrefixEnd(lo)
	}
	all := len(pattern) == 1 && pattern[0] == '*'
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	out := [][]byte{}
	for step, ok := 1, it.First(); ok; step, ok = step+1, it.Next() {
		if tx.stopping(step) {
			it.Close()
			return nil, ErrStopped
		}
		k := it.Key()[2:]
		if !all && !glob.Match(pattern, k, false) {
			continue
		}
		live, err := tx.visible(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		if !live {
			continue
		}
		out = append(out, append([]byte(nil), k...))
	}
	return out, it.Close()
}

// FlushDB deletes every key of the current database with a few range
// deletions, whatever their number.
func (tx *Tx) FlushDB() error {
	if err := tx.touchReplaced(tx.ldb, tx.pdb); err != nil {
		return err
	}
	tx.touchFlushed(tx.ldb)
	return tx.flush(tx.pdb)
}

// FlushAll deletes every key of every database.
func (tx *Tx) FlushAll() error {
	for db := 0; db < NumDBs; db++ {
		if err := tx.touchReplaced(db, tx.dbmap[db]); err != nil {
			return err
		}
		if err := tx.flush(tx.dbmap[db]); err != nil {
			return err
		}
	}
	tx.touchFlushed(-1)
	return nil
}

func (tx *Tx) flush(pdb byte) error {
	if _, ok := tx.s.observer.(StreamObserver); ok {
		tx.streamsGone = append(tx.streamsGone, Touch{DB: tx.logical(pdb), All: true})
	}
	b := tx.batch()
	for _, p := range [][]byte{
		metaPrefix(pdb),
		{storage.PrefixRedisSub, pdb},
		expiryPrefix(pdb),
		expiryPrefix(fieldExpiryDB | pdb),
		{storage.PrefixGarbage, pdb},
	} {
		// A range deletion of an empty span would only add a tombstone
		// that every later read steps over until a compaction drops it;
		// a loop of FLUSHALLs on a mostly empty keyspace adds dozens each.
		empty, err := spanEmpty(b, p, storage.PrefixEnd(p))
		if err != nil {
			return err
		}
		if empty {
			continue
		}
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return err
		}
	}
	tx.flushed[pdb] = true
	tx.delta[pdb] = counters{}
	for mk := range tx.pending {
		if mk[1] == pdb { // written before the flush, which deleted it
			delete(tx.pending, mk)
		}
	}
	return nil
}

// SwapDB swaps two logical databases: only the map from logical to
// physical databases changes.
func (tx *Tx) SwapDB(a, b int) error {
	if a < 0 || a >= NumDBs || b < 0 || b >= NumDBs {
		return ErrDBIndex
	}
	if a == b {
		return nil
	}
	for _, db := range []int{a, b} {
		if err := tx.touchReplaced(db, tx.dbmap[a], tx.dbmap[b]); err != nil {
			return err
		}
	}
	tx.touchFlushed(-1)
	tx.dbmap[a], tx.dbmap[b] = tx.dbmap[b], tx.dbmap[a]
	tx.mapDirty = true
	if err := tx.batch().Set(dbmapKey(), tx.dbmap[:]); err != nil {
		return err
	}
	tx.Use(tx.ldb)
	return nil
}

// spanEmpty reports whether r holds no key in [lo, hi).
func spanEmpty(r storage.Reader, lo, hi []byte) (bool, error) {
	it, err := r.NewIter(lo, hi)
	if err != nil {
		return false, err
	}
	empty := !it.First()
	if err := it.Close(); err != nil {
		return false, err
	}
	return empty, nil
}
