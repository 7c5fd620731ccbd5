package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Stats counts the work of one plan, for explain.
type Stats struct {
	keysExamined int64
	docsExamined int64
	// Matched counts documents that passed the filter and visibility.
	Matched  int64
	Skipped  int64
	Returned int64
	// Sorted counts documents that went through a blocking sort;
	// SortedBytes their size, and Spills the runs it wrote to disk.
	Sorted, SortedBytes, Spills int64
}

// Scanner walks a plan's access path over a storage reader and yields the
// candidate documents (not yet filtered).
type Scanner struct {
	r     storage.Reader
	p     *Plan
	stats *Stats
	// next range to open, and the open iterator.
	rangeIdx int
	it       *storage.Iter
	prefix   []byte
	started  bool
	seen     map[string]bool
	// lastNatural is the sequence of the natural-order entry of the last
	// document a capped collection's scan yielded.
	lastNatural uint64
}

// NewScanner returns a scanner of p over r that counts its work in stats.
func NewScanner(r storage.Reader, p *Plan, stats *Stats) *Scanner {
	s := &Scanner{r: r, p: p, stats: stats}
	if p.dedupe {
		s.seen = map[string]bool{}
	}
	return s
}

// Close releases the open iterator.
func (s *Scanner) Close() {
	if s.it != nil {
		s.it.Close()
		s.it = nil
	}
}

// openRange opens the iterator on the next range; ok is false when every
// range has been scanned.
func (s *Scanner) openRange() (bool, error) {
	s.Close()
	if s.p.Index == nil {
		if s.rangeIdx > 0 {
			return false, nil
		}
		s.rangeIdx++
		if s.p.natural {
			return s.openNatural()
		}
		s.prefix = catalog.DocPrefix(s.p.Meta.ID)
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
	if s.p.Index.IsID {
		s.prefix = catalog.DocPrefix(s.p.Meta.ID)
	} else {
		s.prefix = catalog.IndexPrefix(s.p.Index.ID)
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

func (s *Scanner) open(lo, hi []byte) (bool, error) {
	it, err := s.r.NewIter(lo, hi)
	if err != nil {
		return false, err
	}
	s.it = it
	s.started = false
	return true, nil
}

// step moves the open iterator; ok is false at the end of its range.
func (s *Scanner) step() bool {
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
func (s *Scanner) next(ctx context.Context) (*stored.Doc, error) {
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
			s.Close()
			continue
		}
		var raw []byte
		var idEnc []byte
		switch {
		case s.p.natural && s.p.Index == nil:
			seq, ok := catalog.NaturalSeq(s.it.Key())
			if !ok {
				return nil, fmt.Errorf("docdb: corrupt natural-order key %x", s.it.Key())
			}
			idEnc = append([]byte(nil), s.it.Value()...)
			v, err := s.r.Get(catalog.DocKey(s.p.Meta.ID, idEnc))
			if errors.Is(err, storage.ErrNotFound) {
				return nil, fmt.Errorf("docdb: natural-order entry %d points to a missing document", seq)
			}
			if err != nil {
				return nil, err
			}
			raw = v
			s.lastNatural = seq
		case s.p.Index == nil || s.p.Index.IsID:
			if s.p.Index != nil {
				s.stats.keysExamined++
			}
			raw = append([]byte(nil), s.it.Value()...)
		default:
			s.stats.keysExamined++
			rest := s.it.Key()[len(s.prefix):]
			_, id, err := s.p.Index.SplitEntry(rest)
			if err != nil {
				return nil, fmt.Errorf("docdb: index %s entry: %w", s.p.Index.Name, err)
			}
			idEnc = id
			if s.seen != nil {
				if s.seen[string(idEnc)] {
					continue
				}
				s.seen[string(idEnc)] = true
			}
			v, err := s.r.Get(catalog.DocKey(s.p.Meta.ID, idEnc))
			if errors.Is(err, storage.ErrNotFound) {
				return nil, fmt.Errorf("docdb: index %s entry points to a missing document", s.p.Index.Name)
			}
			if err != nil {
				return nil, err
			}
			raw = v
		}
		s.stats.docsExamined++
		sd, err := stored.New(raw)
		if err != nil {
			return nil, fmt.Errorf("docdb: stored document: %w", err)
		}
		if idEnc != nil && !bytes.Equal(idEnc, sd.IDEnc) {
			return nil, fmt.Errorf("docdb: index %s entry points to the wrong document", s.p.Index.Name)
		}
		return sd, nil
	}
}

// Matched is a document that passed the filter, with the match result (for
// positional projections and updates).
type Matched struct {
	Stored *stored.Doc
	Result query.MatchResult
}

// Visibility decides which documents a read may see: strict visibility
// hides the documents that have expired.
type Visibility interface {
	Hides(doc bson.D) bool
}

// Matcher filters a scanner's documents through the query filter and the
// visibility check.
type Matcher struct {
	Scanner *Scanner
	Vis     Visibility
	Stats   *Stats
}

// Next returns the next matching, visible document, or nil at the end.
func (m *Matcher) Next(ctx context.Context) (*Matched, error) {
	for {
		sd, err := m.Scanner.next(ctx)
		if err != nil || sd == nil {
			return nil, err
		}
		if m.Vis.Hides(sd.Doc) {
			continue
		}
		res, err := m.Scanner.p.Filter.Eval(sd.Doc)
		if err != nil {
			return nil, err
		}
		if !res.Matched {
			continue
		}
		m.Stats.Matched++
		return &Matched{Stored: sd, Result: res}, nil
	}
}
