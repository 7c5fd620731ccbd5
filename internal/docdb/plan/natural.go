package plan

import (
	"encoding/binary"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/storage"
)

// A collection scan of a capped collection walks its natural-order entries
// (catalog/capped.go) instead of its documents, so it yields the documents
// in insertion order ({$natural: 1}) or the reverse, and a tailable cursor
// can resume it past the last document it returned.

// Natural reports whether p scans a capped collection in insertion order.
func (p *Plan) Natural() bool { return p.natural }

// ResumeAfter makes a natural-order scan start past sequence seq (forward
// scans only).
func (p *Plan) ResumeAfter(seq uint64) { p.after = seq }

// LastNatural returns the sequence of the last document a natural-order
// scan yielded; 0 before the first.
func (s *Scanner) LastNatural() uint64 { return s.lastNatural }

// openNatural opens the iterator on the natural-order entries.
func (s *Scanner) openNatural() (bool, error) {
	s.prefix = catalog.NaturalPrefix(s.p.Meta.ID)
	lo := s.prefix
	if s.p.after > 0 {
		lo = binary.BigEndian.AppendUint64(append([]byte(nil), s.prefix...), s.p.after+1)
	}
	return s.open(lo, storage.PrefixEnd(s.prefix))
}
