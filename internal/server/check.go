package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// Check verifies the data directory dir of a stopped server (`mayfly check
// --dir D`): it opens the storage and both data models as a restart would
// (replaying the write-ahead log, and removing what an index build
// interrupted by a crash left; a running server holds the directory's
// lock, and Check then fails with storage.ErrLocked) and runs both
// consistency checkers: the document model's, which proves that every
// secondary index agrees with the documents, that the stored counters
// match and that every stored key has an owner in the catalog (docdb
// reports its first violation), and the Redis model's, which proves the
// expiry indexes, counters, element counts and collection indexes of the
// keyspace (kv reports every problem, one per line, up to 100). The
// error joins what both found; nil means the directory is consistent.
func Check(ctx context.Context, dir string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*")); len(m) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return err
		}
		return fmt.Errorf("%s is not a mayfly data directory (no MANIFEST)", dir)
	}
	store, err := storage.Open(storage.Options{Dir: dir, Logger: log})
	if err != nil {
		return err
	}
	db, err := docdb.Open(docdb.Options{Store: store, Logger: log})
	if err != nil {
		return errors.Join(fmt.Errorf("open document data: %w", err), store.Close())
	}
	docErr := db.Check(ctx)
	keys, err := kv.Open(ctx, kv.Options{Store: store, Logger: log})
	if err != nil {
		return errors.Join(docErr, fmt.Errorf("open key-value data: %w", err), db.Close(), store.Close())
	}
	kvErr := keys.Check(ctx)
	return errors.Join(docErr, kvErr, keys.Close(), db.Close(), store.Close())
}
