package docdb

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// DBHash answers dbHash: the md5 of each collection's documents and of the
// whole database, computed as MongoDB computes them, so that two members
// holding the same data answer the same hashes.
type DBHash struct {
	// Collections maps each hashed collection to the hex md5 of its
	// documents' BSON bytes, concatenated in _id order.
	Collections map[string]string
	// Names are the hashed collections, sorted.
	Names []string
	// Capped are the hashed collections that are capped, sorted.
	Capped []string
	// UUIDs maps each hashed collection to its UUID.
	UUIDs map[string]bson.Binary
	// MD5 is the hex md5 of the collections' hex hashes, concatenated in
	// name order.
	MD5 string
}

// dbHashSkipped reports whether dbHash leaves a collection out: the ones
// MongoDB does not replicate (system.profile, temporary map-reduce output).
func dbHashSkipped(name string) bool {
	return name == "system.profile" || strings.HasPrefix(name, "tmp.mr.")
}

// DBHash hashes db's collections, or only those named in only when it is
// not empty, from one consistent snapshot of the store. Every document
// stored counts, including one that has expired but is not deleted yet:
// the hash describes what the member stores, not what a read shows.
func (e *Engine) DBHash(ctx context.Context, db string, only []string) (DBHash, error) {
	out := DBHash{Collections: map[string]string{}, UUIDs: map[string]bson.Binary{}}
	if err := catalog.CheckDB(db); err != nil {
		return out, err
	}
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	e.mu.RLock()
	var metas []*catalog.CollMeta
	for _, c := range e.cat.DBCollections(db) {
		if dbHashSkipped(c.Meta.Name) || (len(want) > 0 && !want[c.Meta.Name]) {
			continue
		}
		metas = append(metas, c.Meta)
	}
	snap := e.store.NewSnapshot()
	e.mu.RUnlock()
	defer snap.Close()
	sum := md5.New()
	for _, m := range metas {
		h, err := hashCollection(ctx, snap, m)
		if err != nil {
			return out, fmt.Errorf("docdb: dbHash of %s.%s: %w", db, m.Name, err)
		}
		out.Names = append(out.Names, m.Name)
		out.Collections[m.Name] = h
		out.UUIDs[m.Name] = m.UUID
		if _, ok := m.Capped(); ok {
			out.Capped = append(out.Capped, m.Name)
		}
		sum.Write([]byte(h))
	}
	out.MD5 = hex.EncodeToString(sum.Sum(nil))
	return out, nil
}

// hashCollection is the hex md5 of m's documents in _id order.
func hashCollection(ctx context.Context, snap *storage.Snapshot, m *catalog.CollMeta) (string, error) {
	p := catalog.DocPrefix(m.ID)
	it, err := snap.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return "", err
	}
	defer it.Close()
	h := md5.New()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		sd, err := stored.New(append([]byte(nil), it.Value()...))
		if err != nil {
			return "", fmt.Errorf("document %x: %w", it.Key(), err)
		}
		h.Write(sd.Raw)
	}
	if err := it.Error(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
