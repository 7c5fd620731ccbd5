package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/storage"
)

// Check verifies the data directory dir of a stopped server (`mayfly check
// --dir D`): it opens the storage (replaying the write-ahead log, as a
// restart would; a running server holds the directory's lock, and Check
// then fails with storage.ErrLocked) and runs the document model's
// consistency checker, which proves that every secondary index agrees with
// the documents and that the stored counters match. It returns the first
// violation found. The Redis model has no checker yet.
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
	err = db.Check(ctx)
	return errors.Join(err, db.Close(), store.Close())
}
