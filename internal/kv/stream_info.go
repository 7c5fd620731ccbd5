package kv

import (
	"encoding/binary"

	"github.com/mayfly/mayfly/internal/storage"
)

// StreamInfo is what XINFO STREAM reports of a stream. Nodes is the
// number of macro nodes its entries span (Redis's radix tree keys). With
// full, Entries holds the first entries and Groups every group with its
// pending entries and consumers; otherwise First and Last are the edge
// entries (nil when empty).
type StreamInfo struct {
	Length       int64
	Nodes        int64
	LastID       StreamID
	MaxDeletedID StreamID
	EntriesAdded int64
	FirstID      StreamID
	GroupCount   int64
	First, Last  *StreamEntry
	Entries      []StreamEntry
	Groups       []GroupInfo
}

// GroupInfo is what XINFO GROUPS (and STREAM FULL) report of a group.
// EntriesRead and Lag are -1 when unknown. Pending and Consumers are
// filled for XINFO STREAM FULL only.
type GroupInfo struct {
	Name          []byte
	ConsumerCount int64
	PendingCount  int64
	LastID        StreamID
	EntriesRead   int64
	Lag           int64
	Pending       []PendingEntry
	Consumers     []ConsumerInfo
}

// ConsumerInfo is what XINFO CONSUMERS (and STREAM FULL) report of a
// consumer: SeenTime is the Unix ms it was last seen, Idle the ms since.
// Pending is filled for XINFO STREAM FULL only.
type ConsumerInfo struct {
	Name         []byte
	PendingCount int64
	SeenTime     int64
	Idle         int64
	Pending      []PendingEntry
}

// XInfoStream describes the stream at key; ok is false when it is
// missing. With full, at most count entries and pending entries per list
// are listed (0 for all).
func (tx *Tx) XInfoStream(key []byte, full bool, count int64) (StreamInfo, bool, error) {
	var r StreamInfo
	s, err := tx.streamFor(key, true)
	if err != nil || !s.found {
		return r, false, err
	}
	r.Length, r.LastID, r.MaxDeletedID = int64(s.length), s.last, s.maxDel
	r.EntriesAdded, r.GroupCount = int64(s.added), int64(s.groups)
	if s.length > 0 {
		first, err := tx.streamRange(&s, StreamID{}, MaxStreamID, 1, false)
		if err != nil {
			return r, false, err
		}
		last, err := tx.streamRange(&s, StreamID{}, MaxStreamID, 1, true)
		if err != nil {
			return r, false, err
		}
		r.First, r.Last, r.FirstID = &first[0], &last[0], first[0].ID
		node, err := tx.streamNodeOf(&s, first[0].ID)
		if err != nil {
			return r, false, err
		}
		r.Nodes = int64(s.tailNode-node) + 1
	}
	if !full {
		return r, true, nil
	}
	if r.Entries, err = tx.streamRange(&s, StreamID{}, MaxStreamID, count, false); err != nil {
		return r, false, err
	}
	groups, err := tx.streamGroups(&s)
	if err != nil {
		return r, false, err
	}
	r.Groups = []GroupInfo{}
	for i := range groups {
		gi, err := tx.groupInfo(&s, &groups[i])
		if err != nil {
			return r, false, err
		}
		pel, err := tx.pelRange(&s, gi.Name, StreamID{}, MaxStreamID, 0)
		if err != nil {
			return r, false, err
		}
		gi.Pending = limitPending(pel, count, nil)
		cs, err := tx.streamConsumers(&s, gi.Name)
		if err != nil {
			return r, false, err
		}
		gi.Consumers = []ConsumerInfo{}
		for _, c := range cs {
			ci := tx.consumerInfo(c)
			ci.Pending = limitPending(pel, count, c.name)
			gi.Consumers = append(gi.Consumers, ci)
		}
		r.Groups = append(r.Groups, gi)
	}
	return r, true, nil
}

// limitPending returns up to count (0 for all) of pel, of consumer only
// when it is not nil.
func limitPending(pel []PendingEntry, count int64, consumer []byte) []PendingEntry {
	out := []PendingEntry{}
	for _, p := range pel {
		if count > 0 && int64(len(out)) >= count {
			break
		}
		if consumer == nil || string(p.Consumer) == string(consumer) {
			out = append(out, p)
		}
	}
	return out
}

// streamNodeOf returns the node the entry id was added to.
func (tx *Tx) streamNodeOf(s *streamState, id StreamID) (uint64, error) {
	v, err := tx.reader().Get(tx.streamEntryKey(s, id))
	if err != nil || len(v) < 8 {
		return s.tailNode, err
	}
	return binary.BigEndian.Uint64(v[:8]), nil
}

func (tx *Tx) groupInfo(s *streamState, g *streamGroup) (GroupInfo, error) {
	gi := GroupInfo{Name: g.name, PendingCount: int64(g.pending), LastID: g.last, EntriesRead: g.entriesRead, Lag: -1}
	lag, ok, err := tx.groupLag(s, g)
	if err != nil {
		return gi, err
	}
	if ok {
		gi.Lag = lag
	}
	lo := tx.consumerPrefix(s, g.name)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return gi, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		gi.ConsumerCount++
	}
	return gi, it.Close()
}

func (tx *Tx) consumerInfo(c streamConsumer) ConsumerInfo {
	return ConsumerInfo{Name: c.name, PendingCount: int64(c.pending), SeenTime: c.seen, Idle: max(tx.now-c.seen, 0)}
}

// XInfoGroups describes the groups of the stream at key in name order;
// ok is false when it is missing.
func (tx *Tx) XInfoGroups(key []byte) ([]GroupInfo, bool, error) {
	s, err := tx.streamFor(key, true)
	if err != nil || !s.found {
		return nil, false, err
	}
	groups, err := tx.streamGroups(&s)
	if err != nil {
		return nil, false, err
	}
	out := []GroupInfo{}
	for i := range groups {
		gi, err := tx.groupInfo(&s, &groups[i])
		if err != nil {
			return nil, false, err
		}
		out = append(out, gi)
	}
	return out, true, nil
}

// XInfoConsumers describes the consumers of a group in name order; ok is
// false when the stream is missing, ErrXGroupNoGroup when the group is.
func (tx *Tx) XInfoConsumers(key, group []byte) ([]ConsumerInfo, bool, error) {
	s, err := tx.streamFor(key, true)
	if err != nil || !s.found {
		return nil, false, err
	}
	if _, ok, err := tx.groupGet(&s, group); err != nil {
		return nil, false, err
	} else if !ok {
		return nil, true, ErrXGroupNoGroup
	}
	cs, err := tx.streamConsumers(&s, group)
	if err != nil {
		return nil, false, err
	}
	out := make([]ConsumerInfo, 0, len(cs))
	for _, c := range cs {
		out = append(out, tx.consumerInfo(c))
	}
	return out, true, nil
}
