package docdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/storage"
)

// execStats counts the work of one plan, for explain.
type execStats struct {
	keysExamined int64
	docsExamined int64
	// matched counts documents that passed the filter and visibility.
	matched  int64
	skipped  int64
	returned int64
	// sorted counts documents that went through a blocking sort.
	sorted int64
}

// scanner walks a plan's access path over a storage reader and yields the
// candidate documents (not yet filtered).
type scanner struct {
	r     storage.Reader
	p     *plan
	stats *execStats
	// next range to open, and the open iterator.
	rangeIdx int
	it       *storage.Iter
	prefix   []byte
	started  bool
	seen     map[string]bool
}

func newScanner(r storage.Reader, p *plan, stats *execStats) *scanner {
	s := &scanner{r: r, p: p, stats: stats}
	if p.dedupe {
		s.seen = map[string]bool{}
	}
	return s
}

// close releases the open iterator.
func (s *scanner) close() {
	if s.it != nil {
		s.it.Close()
		s.it = nil
	}
}

// openRange opens the iterator on the next range; ok is false when every
// range has been scanned.
func (s *scanner) openRange() (bool, error) {
	s.close()
	if s.p.ix == nil {
		if s.rangeIdx > 0 {
			return false, nil
		}
		s.rangeIdx++
		s.prefix = catalog.DocPrefix(s.p.meta.ID)
		return s.open(s.prefix, storage.PrefixEnd(s.prefix))
	}
	if s.rangeIdx >= len(s.p.ranges) {
		return false, nil
	}
	i := s.rangeIdx
	if s.p.reverse {
		i = len(s.p.ranges) - 1 - s.rangeIdx
	}
	s.rangeIdx++
	if s.p.ix.IsID {
		s.prefix = catalog.DocPrefix(s.p.meta.ID)
	} else {
		s.prefix = catalog.IndexPrefix(s.p.ix.ID)
	}
	r := s.p.ranges[i]
	lo := append(append([]byte(nil), s.prefix...), r[0]...)
	var hi []byte
	if r[1] != nil {
		hi = append(append([]byte(nil), s.prefix...), r[1]...)
	} else {
		hi = storage.PrefixEnd(s.prefix)
	}
	return s.open(lo, hi)
}

func (s *scanner) open(lo, hi []byte) (bool, error) {
	it, err := s.r.NewIter(lo, hi)
	if err != nil {
		return false, err
	}
	s.it = it
	s.started = false
	return true, nil
}

// step moves the open iterator; ok is false at the end of its range.
func (s *scanner) step() bool {
	if !s.started {
		s.started = true
		if s.p.reverse {
			return s.it.Last()
		}
		return s.it.First()
	}
	if s.p.reverse {
		return s.it.Prev()
	}
	return s.it.Next()
}

// next returns the next candidate document, or nil at the end.
func (s *scanner) next(ctx context.Context) (*storedDoc, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.it == nil {
			ok, err := s.openRange()
			if err != nil || !ok {
				return nil, err
			}
		}
		if !s.step() {
			if err := s.it.Error(); err != nil {
				return nil, err
			}
			s.close()
			continue
		}
		var raw []byte
		var idEnc []byte
		switch {
		case s.p.ix == nil || s.p.ix.IsID:
			if s.p.ix != nil {
				s.stats.keysExamined++
			}
			raw = append([]byte(nil), s.it.Value()...)
		default:
			s.stats.keysExamined++
			rest := s.it.Key()[len(s.prefix):]
			_, id, err := s.p.ix.SplitEntry(rest)
			if err != nil {
				return nil, fmt.Errorf("docdb: index %s entry: %w", s.p.ix.Name, err)
			}
			idEnc = id
			if s.seen != nil {
				if s.seen[string(idEnc)] {
					continue
				}
				s.seen[string(idEnc)] = true
			}
			v, err := s.r.Get(catalog.DocKey(s.p.meta.ID, idEnc))
			if errors.Is(err, storage.ErrNotFound) {
				return nil, fmt.Errorf("docdb: index %s entry points to a missing document", s.p.ix.Name)
			}
			if err != nil {
				return nil, err
			}
			raw = v
		}
		s.stats.docsExamined++
		sd, err := newStoredDoc(raw)
		if err != nil {
			return nil, fmt.Errorf("docdb: stored document: %w", err)
		}
		if idEnc != nil && !bytes.Equal(idEnc, sd.idEnc) {
			return nil, fmt.Errorf("docdb: index %s entry points to the wrong document", s.p.ix.Name)
		}
		return sd, nil
	}
}

// matched is a document that passed the filter, with the match result (for
// positional projections and updates).
type matched struct {
	sd *storedDoc
	m  query.MatchResult
}

// planVisibility decides which documents a read may see: strict visibility
// hides the documents that have expired.
type planVisibility interface {
	Hides(doc bson.D) bool
}

// matcher filters a scanner's documents through the query filter and the
// visibility check.
type matcher struct {
	sc    *scanner
	vis   planVisibility
	stats *execStats
}

// next returns the next matching, visible document, or nil at the end.
func (m *matcher) next(ctx context.Context) (*matched, error) {
	for {
		sd, err := m.sc.next(ctx)
		if err != nil || sd == nil {
			return nil, err
		}
		if m.vis.Hides(sd.doc) {
			continue
		}
		res, err := m.sc.p.filter.Eval(sd.doc)
		if err != nil {
			return nil, err
		}
		if !res.Matched {
			continue
		}
		m.stats.matched++
		return &matched{sd: sd, m: res}, nil
	}
}
