package docdb

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/storage"
)

// Crash safety of index builds. createIndexes writes the entries of a new
// index over existing documents in several batches (maxBatchDocs
// documents each) before the catalog record that publishes the index
// commits, so a crash between the two would leave entries under an index
// id that no index owns. To make the outcome exact, the build first
// commits a build record
//
//	PrefixCatalog 'b' [index id u64] -> [collection id u64]
//
// in the same batch that allocates the index id, before any entry. The
// batch that publishes the index deletes the record, and so does the
// batch that removes the entries of a failed build. At Open, a record
// still present means a build that never published: its entries are
// deleted with one range deletion, together with the record. After a
// crash the index therefore either does not exist and has no entry left,
// or its catalog record committed and it is complete (the record and the
// last entry batch went before the publish, and the write-ahead log
// replays a prefix of the commits).

// buildRecordKey returns the catalog key of the build record of an index.
func buildRecordKey(indexID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, catalog.KeyBuild}, indexID)
}

// putBuildRecords writes into b the build records of idx, indexes of the
// collection collID about to be built.
func putBuildRecords(b *storage.Batch, collID uint64, idx []*catalog.IndexMeta) error {
	for _, ix := range idx {
		if err := b.Set(buildRecordKey(ix.ID), binary.BigEndian.AppendUint64(nil, collID)); err != nil {
			return err
		}
	}
	return nil
}

// deleteBuildRecords writes into b the deletion of the build records of
// idx.
func deleteBuildRecords(b *storage.Batch, idx []*catalog.IndexMeta) error {
	for _, ix := range idx {
		if err := b.Delete(buildRecordKey(ix.ID)); err != nil {
			return err
		}
	}
	return nil
}

// buildRecord is a decoded build record.
type buildRecord struct {
	indexID, collID uint64
}

// readBuildRecords returns the build records stored in r.
func readBuildRecords(r storage.Reader) ([]buildRecord, error) {
	lo := []byte{storage.PrefixCatalog, catalog.KeyBuild}
	it, err := r.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []buildRecord
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 10 || len(it.Value()) != 8 {
			return nil, fmt.Errorf("docdb: corrupt index build record %x", it.Key())
		}
		out = append(out, buildRecord{
			indexID: binary.BigEndian.Uint64(it.Key()[2:]),
			collID:  binary.BigEndian.Uint64(it.Value()),
		})
	}
	return out, it.Error()
}

// recoverBuilds removes what the index builds interrupted by a crash left:
// the entries of every index whose build record is still stored, unless
// the index is in the catalog (its publish committed, which cannot leave
// the record behind, but a published index is never deleted), and the
// records. It returns the number of interrupted builds removed.
func recoverBuilds(st *storage.Store, cat *catalog.Catalog) (int, error) {
	recs, err := readBuildRecords(st)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	published := map[uint64]bool{}
	for _, c := range cat.Colls {
		for _, ix := range c.Meta.Indexes {
			published[ix.ID] = true
		}
	}
	b := st.NewBatch()
	defer b.Close()
	n := 0
	for _, r := range recs {
		if !published[r.indexID] {
			p := catalog.IndexPrefix(r.indexID)
			if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
				return 0, err
			}
			n++
		}
		if err := b.Delete(buildRecordKey(r.indexID)); err != nil {
			return 0, err
		}
	}
	if err := b.Commit(); err != nil {
		return 0, fmt.Errorf("docdb: remove interrupted index builds: %w", err)
	}
	return n, nil
}

// catalogOwners are the ids the stored catalog owns, read from one snapshot:
// what check compares the document and index keyspaces with.
type catalogOwners struct {
	colls   map[uint64]string // collection id -> "db.coll"
	indexes map[uint64]string // secondary index id -> "db.coll index name"
	builds  map[uint64]uint64 // index id being built -> collection id
	hidden  map[uint64]bool   // hidden TTL policy index ids
}

// readCatalogOwners reads the collection records, build records and hidden
// policy index records of snap.
func readCatalogOwners(snap *storage.Snapshot) (*catalogOwners, error) {
	ids := &catalogOwners{colls: map[uint64]string{}, indexes: map[uint64]string{}, builds: map[uint64]uint64{}, hidden: map[uint64]bool{}}
	lo := []byte{storage.PrefixCatalog, catalog.KeyCollection}
	it, err := snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		var rec catalog.Record
		if err := bson.Unmarshal(it.Value(), &rec); err != nil {
			it.Close()
			return nil, fmt.Errorf("collection record %x: %w", it.Key(), err)
		}
		ns := rec.DB + "." + rec.Name
		if other, dup := ids.colls[uint64(rec.ID)]; dup {
			it.Close()
			return nil, fmt.Errorf("collections %s and %s have the same id %d", other, ns, rec.ID)
		}
		ids.colls[uint64(rec.ID)] = ns
		for _, ir := range rec.Indexes {
			name, _ := catalog.FieldOf(ir.Spec, "name")
			if other, dup := ids.indexes[uint64(ir.ID)]; dup {
				it.Close()
				return nil, fmt.Errorf("indexes %s and %s %v have the same id %d", other, ns, name, ir.ID)
			}
			ids.indexes[uint64(ir.ID)] = fmt.Sprintf("%s %v", ns, name)
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	recs, err := readBuildRecords(snap)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if owner, ok := ids.indexes[r.indexID]; ok {
			return nil, fmt.Errorf("index %s is published but still has a build record", owner)
		}
		ids.builds[r.indexID] = r.collID
	}
	lo = []byte{storage.PrefixCatalog, policy.KeyIndex}
	it, err = snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		var r policy.IndexRecord
		if err := bson.Unmarshal(it.Value(), &r); err != nil {
			it.Close()
			return nil, fmt.Errorf("policy index record %x: %w", it.Key(), err)
		}
		ids.hidden[uint64(r.Index)] = true
	}
	return ids, it.Close()
}
