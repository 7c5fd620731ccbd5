package docdb

import (
	"fmt"
	"os"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/spill"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// A query's memory is bounded as in MongoDB: each blocking sort (find's
// sort without an index that provides the order, and $sort) holds at most
// SortMemoryLimit bytes of documents, and each $group GroupMemoryLimit
// bytes of groups; past it the stage spills sorted runs to files under
// Options.TempDir and merges them, when disk use is allowed
// (the request's allowDiskUse, or AllowDiskUseByDefault), and otherwise
// fails with QueryExceededMemoryLimitNoDiskUseAllowed. A sort's files are
// removed when its cursor is exhausted, killed or times out, and the whole
// directory at Open.

// DefaultSortMemoryLimit is MongoDB's
// internalQueryMaxBlockingSortMemoryUsageBytes: 100 MiB.
const DefaultSortMemoryLimit = 100 * 1024 * 1024

// DefaultGroupMemoryLimit is MongoDB's
// internalDocumentSourceGroupMaxMemoryBytes: 100 MiB.
const DefaultGroupMemoryLimit = 100 * 1024 * 1024

// queryMemory holds the run-time parameters bounding a query's memory.
type queryMemory struct {
	sortLimit     atomic.Int64
	groupLimit    atomic.Int64
	noDiskDefault atomic.Bool // allowDiskUseByDefault is false
	dir           string
	ownDir        bool // dir was made by Open, under os.TempDir()
}

// SortMemoryLimit returns internalQueryMaxBlockingSortMemoryUsageBytes.
func (e *Engine) SortMemoryLimit() int64 { return e.qmem.sortLimit.Load() }

// SetSortMemoryLimit sets internalQueryMaxBlockingSortMemoryUsageBytes; n
// must be positive.
func (e *Engine) SetSortMemoryLimit(n int64) error {
	if n <= 0 {
		return fmt.Errorf("internalQueryMaxBlockingSortMemoryUsageBytes must be greater than 0")
	}
	e.qmem.sortLimit.Store(n)
	return nil
}

// GroupMemoryLimit returns internalDocumentSourceGroupMaxMemoryBytes.
func (e *Engine) GroupMemoryLimit() int64 { return e.qmem.groupLimit.Load() }

// SetGroupMemoryLimit sets internalDocumentSourceGroupMaxMemoryBytes; n
// must be positive.
func (e *Engine) SetGroupMemoryLimit(n int64) error {
	if n <= 0 {
		return fmt.Errorf("internalDocumentSourceGroupMaxMemoryBytes must be greater than 0")
	}
	e.qmem.groupLimit.Store(n)
	return nil
}

// AllowDiskUseByDefault returns allowDiskUseByDefault.
func (e *Engine) AllowDiskUseByDefault() bool { return !e.qmem.noDiskDefault.Load() }

// SetAllowDiskUseByDefault sets allowDiskUseByDefault.
func (e *Engine) SetAllowDiskUseByDefault(b bool) { e.qmem.noDiskDefault.Store(!b) }

// openQueryMemory sets the defaults and empties the temporary directory of
// the files a previous run left.
func (e *Engine) openQueryMemory() error {
	e.qmem.sortLimit.Store(DefaultSortMemoryLimit)
	e.qmem.groupLimit.Store(DefaultGroupMemoryLimit)
	e.qmem.dir = e.opts.TempDir
	if e.qmem.dir == "" {
		dir, err := os.MkdirTemp("", "mayfly-sort-")
		if err != nil {
			return fmt.Errorf("docdb: temporary directory: %w", err)
		}
		e.qmem.dir, e.qmem.ownDir = dir, true
		return nil
	}
	if err := os.RemoveAll(e.qmem.dir); err != nil {
		return fmt.Errorf("docdb: clean temporary directory: %w", err)
	}
	return nil
}

// closeQueryMemory removes a temporary directory the Engine made itself.
func (e *Engine) closeQueryMemory() {
	if e.qmem.ownDir {
		os.RemoveAll(e.qmem.dir)
	}
}

// allowDiskUse resolves a request's allowDiskUse against the default.
func (e *Engine) allowDiskUse(req *bool) bool {
	if req != nil {
		return *req
	}
	return e.AllowDiskUseByDefault()
}

// sortItem is a document held by a blocking sort: its bytes, its sort key
// and its match's array position (for a positional projection). The
// decoded document is dropped once the key is taken, so a sort holds
// little more than the documents' bytes.
type sortItem struct {
	raw        bson.Raw
	key        []any
	arrayIndex int
}

// sortMemoryError is MongoDB's error for a find's sort past its memory
// limit without disk use.
func sortMemoryError(limit int64) error {
	return mongoerr.Newf(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", limit)
}

// newDocSorter returns the sorter of a find's blocking sort.
func (e *Engine) newDocSorter(q *findQuery, srt *query.Sort, keep int64) *spill.Sorter[sortItem] {
	return spill.New(spill.Options[sortItem]{
		Compare:   func(a, b sortItem) int { return srt.CompareKeys(a.key, b.key) },
		Size:      func(v sortItem) int64 { return int64(len(v.raw)) + keySize(v.key) },
		Encode:    encodeSortItem,
		Decode:    func(b []byte) (sortItem, error) { return decodeSortItem(b, srt.KeyOf) },
		MaxMemory: e.SortMemoryLimit(),
		AllowDisk: e.allowDiskUse(q.allowDiskUse),
		Dir:       e.qmem.dir,
		Keep:      keep,
	})
}

// keySize estimates the memory of a sort key.
func keySize(key []any) int64 {
	n := int64(24 + 16*len(key))
	for _, k := range key {
		if s, ok := k.(string); ok {
			n += int64(len(s))
		}
	}
	return n
}

// encodeSortItem writes the array position and the document; the key is
// computed again when the item is read back.
func encodeSortItem(dst []byte, v sortItem) ([]byte, error) {
	dst = append(dst, byte(v.arrayIndex+1), byte((v.arrayIndex+1)>>8), byte((v.arrayIndex+1)>>16), byte((v.arrayIndex+1)>>24))
	return append(dst, v.raw...), nil
}

func decodeSortItem(b []byte, keyOf func(bson.D) []any) (sortItem, error) {
	if len(b) < 4 {
		return sortItem{}, fmt.Errorf("short sort record")
	}
	ai := int(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24) - 1
	raw := bson.Raw(append([]byte(nil), b[4:]...))
	doc, err := stored.Decode(raw)
	if err != nil {
		return sortItem{}, err
	}
	return sortItem{raw: raw, key: keyOf(doc), arrayIndex: ai}, nil
}
