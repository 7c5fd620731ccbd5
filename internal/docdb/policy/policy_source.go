package policy

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/expiry"
)

// policySource is the expiry.Source of one policy: the hidden indexes of
// every collection of its group. It holds only names and reads the current
// rule and indexes at every call, so an offset change applies at once and
// a disabled policy yields nothing.
type policySource struct {
	p            *Manager
	group, field string
	name         string
}

var (
	_ expiry.Source  = (*policySource)(nil)
	_ expiry.Counter = (*policySource)(nil)
)

// Name implements expiry.Source: policy:<group>.<field>.
func (s *policySource) Name() string { return s.name }

// Kind implements expiry.Source.
func (s *policySource) Kind() expiry.Kind { return expiry.KindPolicy }

// rule returns the policy's current rule, or nil when it is disabled or on
// another field.
func (s *policySource) rule() *Rule {
	r := s.p.RuleFor(s.group)
	if r == nil || r.field != s.field {
		return nil
	}
	return r
}

// NextDue implements expiry.Source: the earliest entry of the group's
// hidden indexes plus the offset.
func (s *policySource) NextDue(ctx context.Context) (time.Time, bool, error) {
	r := s.rule()
	if r == nil {
		return time.Time{}, false, nil
	}
	best, found := int64(0), false
	for _, ix := range s.p.groupIndexes(s.group, s.field) {
		lo, hi := DueRange(ix.ID, math.MaxInt64)
		it, err := s.p.Store.NewIter(lo, hi)
		if err != nil {
			return time.Time{}, false, err
		}
		ok := it.First()
		if !ok {
			err := it.Error()
			it.Close()
			if err != nil {
				return time.Time{}, false, err
			}
			continue
		}
		d, _, err := policyEntry(it.Key())
		it.Close()
		if err != nil {
			return time.Time{}, false, err
		}
		if !found || d < best {
			best, found = d, true
		}
	}
	if !found {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(addMillis(best, r.offsetMs)), true, nil
}

// dueEntry is one due entry of a hidden index.
type dueEntry struct {
	ix    *Index
	date  int64
	idEnc []byte
}

// dueEntries returns up to max (0: all) entries of the group's hidden
// indexes that are due at nowMs under r, earliest first; more reports that
// due entries were left.
func (s *policySource) dueEntries(r *Rule, nowMs int64, max int) (out []dueEntry, more bool, err error) {
	cutoff := nowMs - r.offsetMs
	for _, ix := range s.p.groupIndexes(s.group, s.field) {
		lo, hi := DueRange(ix.ID, cutoff)
		it, err := s.p.Store.NewIter(lo, hi)
		if err != nil {
			return nil, false, err
		}
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			if max > 0 && n == max {
				more = true
				break
			}
			d, idEnc, err := policyEntry(it.Key())
			if err != nil {
				it.Close()
				return nil, false, err
			}
			out = append(out, dueEntry{ix: ix, date: d, idEnc: append([]byte(nil), idEnc...)})
			n++
		}
		err = it.Error()
		it.Close()
		if err != nil {
			return nil, false, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date < out[j].date })
	if max > 0 && len(out) > max {
		out, more = out[:max], true
	}
	return out, more, nil
}

// ReapBatch implements expiry.Source: it deletes up to b.Max due
// documents, earliest first across the group's collections; each
// collection's share of the batch is deleted under its write lock in one
// storage batch with all of its index entries. Every document is checked
// again before deletion: its field may have moved since it was indexed, or
// the offset changed.
func (s *policySource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (r expiry.Reaped, err error) {
	if err := ctx.Err(); err != nil {
		return r, err
	}
	defer func() {
		if r.Items > 0 {
			s.p.policyDeleted(s.group, int64(r.Items))
		}
	}()
	rule := s.rule()
	if rule == nil {
		return r, nil
	}
	nowMs := now.UnixMilli()
	entries, more, err := s.dueEntries(rule, nowMs, max(b.Max, 1))
	if err != nil {
		return r, err
	}
	byColl := map[uint64][]dueEntry{}
	var order []uint64
	for _, de := range entries {
		if _, ok := byColl[de.ix.CollID]; !ok {
			order = append(order, de.ix.CollID)
		}
		byColl[de.ix.CollID] = append(byColl[de.ix.CollID], de)
	}
	for _, id := range order {
		if err := s.reapColl(id, byColl[id], nowMs, &r); err != nil {
			return r, err
		}
	}
	r.More = more
	return r, nil
}

// reapColl deletes the documents of due entries of one collection that
// are still due, and the entries that no longer match their document
// (Reaped.Skipped), and adds them to r once committed.
func (s *policySource) reapColl(collID uint64, entries []dueEntry, nowMs int64, r *expiry.Reaped) error {
	c := s.p.lockCollByID(collID)
	if c == nil {
		return nil // dropped: its hidden index went with it
	}
	defer c.WriteMu.Unlock()
	ix := s.p.IndexOf(collID)
	rule := s.rule()
	if ix == nil || ix.ID != entries[0].ix.ID || rule == nil {
		return nil // the policy changed meanwhile
	}
	w := s.p.NewWriter(c)
	defer w.Close()
	var n, keys, skipped int
	var dues []int64
	for _, de := range entries {
		sd, err := w.Fetch(de.idEnc)
		if err != nil {
			return err
		}
		d, ok := int64(0), false
		if sd != nil {
			d, ok = earliestDate(sd.Doc, ix.Path)
		}
		if !ok || d != de.date {
			// A stray entry (the writers keep entries exact, so this only
			// repairs damage): drop it.
			if err := w.Delete(EntryKey(ix.ID, de.date, de.idEnc)); err != nil {
				return err
			}
			skipped++
			continue
		}
		due := addMillis(d, rule.offsetMs)
		if due > nowMs {
			continue
		}
		entryKeys, err := w.EntryKeysOf(sd.Doc)
		if err != nil {
			return err
		}
		if err := w.RemoveExpired(sd, change.Expiry{Source: change.SourcePolicy, Name: s.group, DueAt: due}); err != nil {
			return err
		}
		n++
		keys += 2 // the _id index and the hidden index
		for _, ks := range entryKeys {
			keys += len(ks)
		}
		dues = append(dues, due)
	}
	if err := w.Commit(); err != nil {
		return err
	}
	r.Items += n
	r.Keys += keys
	r.Due = append(r.Due, dues...)
	r.Skipped += skipped
	return nil
}

// CountDue implements expiry.Counter: the documents due at or before now
// and the range of their due times.
func (s *policySource) CountDue(ctx context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	r := s.rule()
	if r == nil {
		return 0, time.Time{}, time.Time{}, nil
	}
	var n int64
	oldest, newest := int64(math.MaxInt64), int64(math.MinInt64)
	for _, ix := range s.p.groupIndexes(s.group, s.field) {
		cn, lo, hi, err := s.p.countIndexDue(ix, r, now.UnixMilli())
		if err != nil {
			return 0, time.Time{}, time.Time{}, err
		}
		if cn > 0 {
			n += cn
			oldest, newest = min(oldest, lo), max(newest, hi)
		}
	}
	if n == 0 {
		return 0, time.Time{}, time.Time{}, nil
	}
	return n, time.UnixMilli(oldest), time.UnixMilli(newest), nil
}

// countIndexDue counts ix's entries due at nowMs under r, with the range of
// their due times.
func (p *Manager) countIndexDue(ix *Index, r *Rule, nowMs int64) (n, oldest, newest int64, err error) {
	lo, hi := DueRange(ix.ID, nowMs-r.offsetMs)
	it, err := p.Store.NewIter(lo, hi)
	if err != nil {
		return 0, 0, 0, err
	}
	defer it.Close()
	if it.First() {
		d, _, err := policyEntry(it.Key())
		if err != nil {
			return 0, 0, 0, err
		}
		oldest = addMillis(d, r.offsetMs)
	}
	for ok := it.Valid(); ok; ok = it.Next() {
		n++
	}
	if n > 0 && it.Last() {
		d, _, err := policyEntry(it.Key())
		if err != nil {
			return 0, 0, 0, err
		}
		newest = addMillis(d, r.offsetMs)
	}
	return n, oldest, newest, it.Error()
}
