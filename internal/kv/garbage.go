package kv

import (
	"context"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Run collects garbage until ctx is cancelled: the sub-keys of collection
// versions that were deleted, expired or overwritten are removed with one
// range deletion per version, after the commit that dropped them. It also
// runs the background eviction pass (evict.go) when a command left the
// counted memory over maxmemory. It returns nil on cancellation.
func (s *Store) Run(ctx context.Context) error {
	for {
		if _, err := s.CollectGarbage(ctx, 0); err != nil && ctx.Err() == nil {
			s.stats.garbageFailed.Add(1)
			s.opts.Logger.Error("kv: collect garbage", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.garbage:
		case <-s.evict:
			if _, err := s.EvictPass(ctx); err != nil && ctx.Err() == nil {
				s.opts.Logger.Error("kv: evict", "err", err)
			}
		}
	}
}

// CollectGarbage removes the sub-keys of up to max dropped versions (0 for
// all) and returns how many versions it collected.
func (s *Store) CollectGarbage(ctx context.Context, max int) (int, error) {
	done := 0
	for max == 0 || done < max {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		n, err := s.collectBatch(256)
		done += n
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil
		}
	}
	return done, nil
}

func (s *Store) collectBatch(limit int) (int, error) {
	tx := s.Begin()
	lo := []byte{storage.PrefixGarbage}
	it, err := tx.batch().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		tx.Rollback()
		return 0, err
	}
	var keys [][]byte
	for ok := it.First(); ok && len(keys) < limit; ok = it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	if err := it.Close(); err != nil {
		tx.Rollback()
		return 0, err
	}
	for _, k := range keys {
		pdb, v, ok := decodeGarbageKey(k)
		if !ok {
			tx.Rollback()
			return 0, fmt.Errorf("%w: garbage key of %d bytes", ErrCorrupt, len(k))
		}
		p := subPrefix(pdb, v)
		if err := tx.batch().DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			tx.Rollback()
			return 0, err
		}
		if err := tx.batch().Delete(k); err != nil {
			tx.Rollback()
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	s.stats.garbageDone.Add(int64(len(keys)))
	return len(keys), nil
}
