package kv

import (
	"github.com/mayfly/mayfly/internal/storage"
)

// StreamValue is a whole stream, as DUMP reads and RESTORE writes it.
type StreamValue struct {
	// Nodes are the stream's macro nodes in ID order.
	Nodes        []StreamNode
	LastID       StreamID
	MaxDeletedID StreamID
	EntriesAdded uint64
	// Groups are in name order.
	Groups []StreamGroupValue
}

// StreamNode is one macro node: its entries in ID order and how many
// entries it has taken, deleted ones included, which decides when XADD
// starts the next node.
type StreamNode struct {
	Entries []StreamEntry
	Fill    uint64
}

// StreamGroupValue is a whole consumer group. EntriesRead is -1 when
// unknown. Pending is in ID order, each entry owned by one of Consumers
// (in name order).
type StreamGroupValue struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	Pending     []PendingEntry
	Consumers   []StreamConsumerValue
}

// StreamConsumerValue is a consumer: its name and the Unix ms it was last
// seen.
type StreamConsumerValue struct {
	Name     []byte
	SeenTime int64
}

// readStreamValue reads the whole of s. A node's Fill is its number of
// entries, except the tail node's, which is the count XADD goes by.
func (tx *Tx) readStreamValue(s *streamState) (*StreamValue, error) {
	v := &StreamValue{LastID: s.last, MaxDeletedID: s.maxDel, EntriesAdded: s.added}
	if s.length > 0 {
		ns := tx.elemKey(s.version, []byte{streamEntryNS})
		lo := s.first.encode(append([]byte{}, ns...))
		it, err := tx.reader().NewIter(lo, storage.PrefixEnd(ns))
		if err != nil {
			return nil, err
		}
		var node uint64
		for ok := it.First(); ok; ok = it.Next() {
			n, fields, err := decodeStreamEntry(it.Value())
			if err != nil {
				it.Close()
				return nil, err
			}
			if len(v.Nodes) == 0 || n != node {
				v.Nodes = append(v.Nodes, StreamNode{})
				node = n
			}
			last := &v.Nodes[len(v.Nodes)-1]
			last.Entries = append(last.Entries, StreamEntry{ID: decodeStreamID(it.Key()[len(ns):]), Fields: fields})
			last.Fill++
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
		if node == s.tailNode && len(v.Nodes) > 0 {
			v.Nodes[len(v.Nodes)-1].Fill = max(s.tailFill, v.Nodes[len(v.Nodes)-1].Fill)
		}
	}
	groups, err := tx.streamGroups(s)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		gv := StreamGroupValue{Name: g.name, LastID: g.last, EntriesRead: g.entriesRead}
		pel, err := tx.pelRange(s, g.name, StreamID{}, MaxStreamID, 0)
		if err != nil {
			return nil, err
		}
		if len(pel) > 0 {
			gv.Pending = pel
		}
		cs, err := tx.streamConsumers(s, g.name)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			gv.Consumers = append(gv.Consumers, StreamConsumerValue{Name: c.name, SeenTime: c.seen})
		}
		v.Groups = append(v.Groups, gv)
	}
	return v, nil
}

// restoreStream writes the entries, groups, consumers and pending entries
// of v under version and returns the stream's record payload. Nodes are
// numbered from 1 in order, the last one the tail that XADD fills on. The
// caller has checked v: entries in ID order, none above LastID, distinct
// groups, consumers and pending entries, each owned by a consumer.
func (tx *Tx) restoreStream(version uint64, v *StreamValue) ([]byte, error) {
	s := streamState{version: version, last: v.LastID, maxDel: v.MaxDeletedID, added: v.EntriesAdded}
	b := tx.batch()
	for i, n := range v.Nodes {
		node := uint64(i + 1)
		for _, e := range n.Entries {
			if s.length == 0 {
				s.first = e.ID
			}
			if err := b.Set(tx.streamEntryKey(&s, e.ID), encodeStreamEntry(node, e.Fields)); err != nil {
				return nil, err
			}
			s.length++
		}
		s.tailNode, s.tailFill = node, max(n.Fill, uint64(len(n.Entries)))
	}
	for _, gv := range v.Groups {
		owned := map[string]uint64{}
		for i := range gv.Pending {
			if err := tx.pelPut(&s, gv.Name, &gv.Pending[i]); err != nil {
				return nil, err
			}
			owned[string(gv.Pending[i].Consumer)]++
		}
		for _, cv := range gv.Consumers {
			c := streamConsumer{name: cv.Name, seen: cv.SeenTime, pending: owned[string(cv.Name)]}
			if err := tx.consumerPut(&s, gv.Name, &c); err != nil {
				return nil, err
			}
		}
		g := streamGroup{name: gv.Name, last: gv.LastID, entriesRead: gv.EntriesRead, pending: uint64(len(gv.Pending))}
		if err := tx.groupPut(&s, &g); err != nil {
			return nil, err
		}
		s.groups++
	}
	return s.encode(), nil
}
