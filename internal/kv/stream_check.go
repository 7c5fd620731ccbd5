package kv

import (
	"encoding/binary"
	"fmt"
)

// checkStream verifies a stream's sub-keys against its record: the entry
// count, the number of groups, each group's pending count, each
// consumer's pending count, and that every pending entry belongs to a
// group and a consumer that exist.
func (ck *checker) checkStream(pdb byte, key []byte, m Meta) error {
	s, err := decodeStream(key, m)
	if err != nil {
		ck.report(ProblemCorrupt, int(pdb), key, "%v", err)
		return nil
	}
	var entries, groups uint64
	groupPending := map[string]uint64{}  // group -> pending count in its record
	consumers := map[string]uint64{}     // scope+consumer -> pending count in its record
	pelByGroup := map[string]uint64{}    // group -> pending entries stored
	pelByConsumer := map[string]uint64{} // scope+consumer -> pending entries stored
	var lastEntry StreamID
	err = ck.elements(pdb, m.Version, func(suffix, val []byte) error {
		if len(suffix) == 0 {
			ck.report(ProblemCorrupt, int(pdb), key, "stream sub-key %x", suffix)
			return nil
		}
		rest := suffix[1:]
		switch suffix[0] {
		case streamEntryNS:
			if len(rest) != 16 {
				ck.report(ProblemCorrupt, int(pdb), key, "stream entry key %x", suffix)
				return nil
			}
			if _, _, err := decodeStreamEntry(val); err != nil {
				ck.report(ProblemCorrupt, int(pdb), key, "entry %s: %v", decodeStreamID(rest), err)
			}
			entries++
			lastEntry = decodeStreamID(rest)
		case streamGroupNS:
			g, err := decodeGroup(rest, val)
			if err != nil {
				ck.report(ProblemCorrupt, int(pdb), key, "group %q: %v", rest, err)
				return nil
			}
			groups++
			groupPending[string(rest)] = g.pending
		case streamConsumerNS:
			group, name, ok := splitScope(rest)
			if !ok || len(val) != 16 {
				ck.report(ProblemCorrupt, int(pdb), key, "stream consumer key %x", suffix)
				return nil
			}
			consumers[scopedName(group, name)] = binary.BigEndian.Uint64(val[8:16])
		case streamPendingNS:
			group, id, ok := splitScope(rest)
			if !ok || len(id) != 16 {
				ck.report(ProblemCorrupt, int(pdb), key, "pending entry key %x", suffix)
				return nil
			}
			p, err := decodePending(decodeStreamID(id), val)
			if err != nil {
				ck.report(ProblemCorrupt, int(pdb), key, "pending entry %s of group %q: %v", p.ID, group, err)
				return nil
			}
			pelByGroup[string(group)]++
			pelByConsumer[scopedName(group, p.Consumer)]++
		default:
			ck.report(ProblemCorrupt, int(pdb), key, "stream sub-key %x", suffix)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if entries != s.length {
		ck.report(ProblemCount, int(pdb), key, "the stream's length is %d, it has %d entries", s.length, entries)
	}
	if entries > 0 && lastEntry.Compare(s.last) > 0 {
		ck.report(ProblemCount, int(pdb), key, "the stream's last ID is %s but it holds entry %s", s.last, lastEntry)
	}
	if groups != s.groups {
		ck.report(ProblemCount, int(pdb), key, "the stream has %d groups in its record, %d stored", s.groups, groups)
	}
	for g, n := range groupPending {
		if pelByGroup[g] != n {
			ck.report(ProblemCount, int(pdb), key, "group %q counts %d pending entries, %d are stored", g, n, pelByGroup[g])
		}
	}
	for g, n := range pelByGroup {
		if _, ok := groupPending[g]; !ok {
			ck.report(ProblemCount, int(pdb), key, "%d pending entries of group %q, which does not exist", n, g)
		}
	}
	for c, n := range consumers {
		if pelByConsumer[c] != n {
			ck.report(ProblemCount, int(pdb), key, "consumer %s counts %d pending entries, %d are stored", c, n, pelByConsumer[c])
		}
	}
	for c, n := range pelByConsumer {
		if _, ok := consumers[c]; !ok {
			ck.report(ProblemCount, int(pdb), key, "%d pending entries of consumer %s, which does not exist", n, c)
		}
	}
	return nil
}

// splitScope splits a length-prefixed group name (groupScope) from what
// follows it.
func splitScope(b []byte) (group, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b[:4])
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

func scopedName(group, name []byte) string { return fmt.Sprintf("%q of group %q", name, group) }
