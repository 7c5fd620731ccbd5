package rdb

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
)

// Streams. A stream's payload (STREAM_LISTPACKS_2, what Redis 7.0 writes;
// STREAM_LISTPACKS of Redis 5 and 6 lacks the three counters after the
// last ID and the groups' entries-read) is:
//
//	nodes: count, then per node its master ID (a 16-byte string, the
//	       big-endian ms and seq) and its listpack (a string)
//	length, last ID (ms, seq), first ID, max deleted entry ID, entries added
//	groups: count, then per group its name, last ID, entries read (-1 as
//	       the 64-bit length 2^64-1 when unknown), its pending entries
//	       (count; raw 16-byte ID, delivery time as 8 bytes little-endian
//	       ms, delivery count) and its consumers (count; name, seen time as
//	       8 bytes, count and raw IDs of the pending entries it owns)
//
// A node's listpack begins with its master entry (live count, deleted
// count, the number of master fields, their names, 0) and then holds its
// entries: flags (1 deleted, 2 same fields as the master entry), the ms
// and seq differences from the master ID, the number of fields and their
// names unless flag 2 is set, the values, and the number of listpack
// elements of the entry from its flags on.

// The flags of an entry in a node's listpack.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// StreamID is a stream entry's ID.
type StreamID struct{ Ms, Seq uint64 }

func (id StreamID) compare(o StreamID) int {
	switch {
	case id.Ms != o.Ms:
		if id.Ms < o.Ms {
			return -1
		}
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

func (id StreamID) raw(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

func rawStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:16])}
}

// StreamValue is a whole stream: its entries in the nodes that hold them, its
// counters and its consumer groups.
type StreamValue struct {
	// Nodes are in ID order; Dump leaves out those without entries.
	Nodes []StreamNode
	// LastID is the largest ID ever added (or set by XSETID).
	LastID StreamID
	// MaxDeletedID is the largest ID ever deleted.
	MaxDeletedID StreamID
	// EntriesAdded counts every entry ever added.
	EntriesAdded uint64
	// Groups are the consumer groups, by name, as Redis keeps them: Load
	// sorts them, their pending entries by ID and their consumers by name.
	Groups []StreamGroup
}

// StreamNode is one node of a stream: its live entries, in ID order, and
// how many entries it has taken, deleted ones included (Load sets it; Dump
// writes the live entries only).
type StreamNode struct {
	Entries []StreamEntry
	Fill    uint64
}

// StreamEntry is one entry: its ID and its fields and values, as field,
// value, field, value...
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// StreamGroup is one consumer group.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64 // -1 when unknown
	// Pending is the group's pending entries list: distinct IDs (Dump
	// sorts them), each owned by one of Consumers.
	Pending   []StreamPending
	Consumers []StreamConsumer // distinct names (Dump sorts them)
}

// StreamPending is one pending entry of a group.
type StreamPending struct {
	ID            StreamID
	DeliveryTime  int64 // Unix ms of the last delivery
	DeliveryCount uint64
	Consumer      []byte
}

// StreamConsumer is one consumer of a group.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64 // Unix ms
}

// first is the ID of the stream's first entry, 0-0 when it has none.
func (s *StreamValue) first() StreamID {
	for _, n := range s.Nodes {
		if len(n.Entries) > 0 {
			return n.Entries[0].ID
		}
	}
	return StreamID{}
}

func (s *StreamValue) length() uint64 {
	var n uint64
	for _, nd := range s.Nodes {
		n += uint64(len(nd.Entries))
	}
	return n
}

// stream writes s as STREAM_LISTPACKS_2 (nil as an empty stream).
func (w *writer) stream(s *StreamValue) {
	if s == nil {
		s = &StreamValue{}
	}
	nodes := 0
	for _, n := range s.Nodes {
		if len(n.Entries) > 0 {
			nodes++
		}
	}
	w.length(uint64(nodes))
	for _, n := range s.Nodes {
		if len(n.Entries) == 0 {
			continue
		}
		master := n.Entries[0].ID
		w.string(master.raw(nil))
		w.string(streamListpack(master, n.Entries))
	}
	first := s.first()
	for _, v := range []uint64{s.length(), s.LastID.Ms, s.LastID.Seq, first.Ms, first.Seq,
		s.MaxDeletedID.Ms, s.MaxDeletedID.Seq, s.EntriesAdded, uint64(len(s.Groups))} {
		w.length(v)
	}
	groups := slices.Clone(s.Groups)
	slices.SortFunc(groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	for _, g := range groups {
		w.string(g.Name)
		w.length(g.LastID.Ms)
		w.length(g.LastID.Seq)
		w.length(uint64(g.EntriesRead))
		pel := slices.Clone(g.Pending)
		slices.SortFunc(pel, func(a, b StreamPending) int { return a.ID.compare(b.ID) })
		w.length(uint64(len(pel)))
		for _, p := range pel {
			w.b = p.ID.raw(w.b)
			w.b = binary.LittleEndian.AppendUint64(w.b, uint64(p.DeliveryTime))
			w.length(p.DeliveryCount)
		}
		cs := slices.Clone(g.Consumers)
		slices.SortFunc(cs, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
		w.length(uint64(len(cs)))
		for _, c := range cs {
			w.string(c.Name)
			w.b = binary.LittleEndian.AppendUint64(w.b, uint64(c.SeenTime))
			var own []StreamID
			for _, p := range pel {
				if bytes.Equal(p.Consumer, c.Name) {
					own = append(own, p.ID)
				}
			}
			w.length(uint64(len(own)))
			for _, id := range own {
				w.b = id.raw(w.b)
			}
		}
	}
}

// streamListpack builds a node's listpack as XADD fills it: the master
// entry takes the first entry's fields, and each entry with the same
// field names is written with the same-fields flag and its values only.
func streamListpack(master StreamID, entries []StreamEntry) []byte {
	lp := newListpack()
	num := func(v int64) { lp.add(strconv.AppendInt(nil, v, 10)) }
	masterFields := entries[0].Fields
	num(int64(len(entries)))
	num(0)
	num(int64(len(masterFields) / 2))
	for i := 0; i < len(masterFields); i += 2 {
		lp.add(masterFields[i])
	}
	num(0)
	for _, e := range entries {
		n := len(e.Fields) / 2
		same := n == len(masterFields)/2
		for i := 0; same && i < len(e.Fields); i += 2 {
			same = bytes.Equal(e.Fields[i], masterFields[i])
		}
		flags := int64(0)
		if same {
			flags = streamFlagSameFields
		}
		num(flags)
		num(int64(e.ID.Ms - master.Ms))
		num(int64(e.ID.Seq - master.Seq))
		if !same {
			num(int64(n))
		}
		for i := 0; i < len(e.Fields); i += 2 {
			if !same {
				lp.add(e.Fields[i])
			}
			lp.add(e.Fields[i+1])
		}
		count := n + 3
		if !same {
			count += n + 1
		}
		num(int64(count))
	}
	return lp.bytes()
}

// id reads an ID written as two lengths.
func (r *reader) id() (StreamID, error) {
	ms, err := r.length()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := r.length()
	return StreamID{ms, seq}, err
}

func (r *reader) rawID() (StreamID, error) {
	b, err := r.take(16)
	if err != nil {
		return StreamID{}, err
	}
	return rawStreamID(b), nil
}

func (r *reader) millis() (int64, error) {
	b, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

// stream reads a stream of type t (STREAM_LISTPACKS or _2) and checks it
// whole: well-formed nodes in ID order holding entries in ID order, none
// above the last ID, the length and first ID the entries give, distinct
// groups, consumers and pending entries, each pending entry owned by
// exactly one consumer.
func (r *reader) stream(t byte) (*StreamValue, error) {
	s := &StreamValue{}
	nodes, err := r.length()
	if err != nil || nodes > uint64(len(r.b)-r.p) {
		return nil, ErrBadFormat
	}
	var prevKey, prevID StreamID
	seen := false
	for i := uint64(0); i < nodes; i++ {
		key, err := r.string()
		if err != nil || len(key) != 16 {
			return nil, ErrBadFormat
		}
		master := rawStreamID(key)
		if i > 0 && master.compare(prevKey) <= 0 {
			return nil, ErrBadFormat
		}
		prevKey = master
		lp, err := r.string()
		if err != nil {
			return nil, err
		}
		n, err := readStreamNode(master, lp)
		if err != nil {
			return nil, ErrBadFormat
		}
		for _, e := range n.Entries {
			if seen && e.ID.compare(prevID) <= 0 {
				return nil, ErrBadFormat
			}
			prevID, seen = e.ID, true
		}
		s.Nodes = append(s.Nodes, n)
	}
	length, err := r.length()
	if err != nil {
		return nil, err
	}
	if s.LastID, err = r.id(); err != nil {
		return nil, err
	}
	if length != s.length() || (seen && prevID.compare(s.LastID) > 0) {
		return nil, ErrBadFormat
	}
	v2 := t == typeStreamLP2
	if v2 {
		first, err := r.id()
		if err != nil {
			return nil, err
		}
		if s.MaxDeletedID, err = r.id(); err != nil {
			return nil, err
		}
		if s.EntriesAdded, err = r.length(); err != nil {
			return nil, err
		}
		if first != s.first() || s.EntriesAdded < length {
			return nil, ErrBadFormat
		}
	} else {
		s.EntriesAdded = length
	}
	groups, err := r.length()
	if err != nil || groups > uint64(len(r.b)-r.p) {
		return nil, ErrBadFormat
	}
	names := map[string]bool{}
	for range groups {
		g, err := r.streamGroup(s, v2)
		if err != nil {
			return nil, err
		}
		if names[string(g.Name)] {
			return nil, ErrBadFormat
		}
		names[string(g.Name)] = true
		s.Groups = append(s.Groups, g)
	}
	slices.SortFunc(s.Groups, func(a, b StreamGroup) int { return bytes.Compare(a.Name, b.Name) })
	return s, nil
}

func (r *reader) streamGroup(s *StreamValue, v2 bool) (StreamGroup, error) {
	var g StreamGroup
	var err error
	if g.Name, err = r.string(); err != nil {
		return g, err
	}
	if g.LastID, err = r.id(); err != nil {
		return g, err
	}
	if v2 {
		n, err := r.length()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	} else {
		g.EntriesRead = s.estimateEntriesRead(g.LastID)
	}
	pending, err := r.length()
	if err != nil || pending > uint64(len(r.b)-r.p)/17 {
		return g, ErrBadFormat
	}
	index := make(map[StreamID]int, pending)
	for range pending {
		var p StreamPending
		if p.ID, err = r.rawID(); err != nil {
			return g, err
		}
		if p.DeliveryTime, err = r.millis(); err != nil {
			return g, err
		}
		if p.DeliveryCount, err = r.length(); err != nil {
			return g, err
		}
		if _, dup := index[p.ID]; dup {
			return g, ErrBadFormat
		}
		index[p.ID] = len(g.Pending)
		g.Pending = append(g.Pending, p)
	}
	consumers, err := r.length()
	if err != nil || consumers > uint64(len(r.b)-r.p)/9 {
		return g, ErrBadFormat
	}
	names := map[string]bool{}
	for range consumers {
		var c StreamConsumer
		if c.Name, err = r.string(); err != nil {
			return g, err
		}
		if names[string(c.Name)] {
			return g, ErrBadFormat
		}
		names[string(c.Name)] = true
		if c.SeenTime, err = r.millis(); err != nil {
			return g, err
		}
		own, err := r.length()
		if err != nil || own > uint64(len(r.b)-r.p)/16 {
			return g, ErrBadFormat
		}
		for range own {
			id, err := r.rawID()
			if err != nil {
				return g, err
			}
			i, ok := index[id]
			if !ok || g.Pending[i].Consumer != nil {
				return g, ErrBadFormat
			}
			g.Pending[i].Consumer = c.Name
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, p := range g.Pending {
		if p.Consumer == nil {
			return g, ErrBadFormat
		}
	}
	slices.SortFunc(g.Pending, func(a, b StreamPending) int { return a.ID.compare(b.ID) })
	slices.SortFunc(g.Consumers, func(a, b StreamConsumer) int { return bytes.Compare(a.Name, b.Name) })
	return g, nil
}

// estimateEntriesRead is the entries-read counter Redis gives a group of
// a STREAM_LISTPACKS payload, which has none: exact when the group's last
// ID is the stream's last or first entry's, or before the first entry;
// otherwise unknown (-1). Such a stream has no deletion recorded and has
// added as many entries as it holds.
func (s *StreamValue) estimateEntriesRead(id StreamID) int64 {
	length := s.length()
	switch {
	case s.EntriesAdded == 0:
		return 0
	case length == 0 && id.compare(s.LastID) <= 0:
		return int64(s.EntriesAdded)
	}
	switch id.compare(s.LastID) {
	case 0:
		return int64(s.EntriesAdded)
	case 1:
		return -1
	}
	switch id.compare(s.first()) {
	case -1:
		return int64(s.EntriesAdded - length)
	case 0:
		return int64(s.EntriesAdded - length + 1)
	}
	return -1
}

// readStreamNode decodes and checks a node's listpack: its master entry,
// then as many entries as its live and deleted counts say, each with the
// element count it claims; the deleted flag must agree with the counts.
// Entries are at or after the master ID and in ID order.
func readStreamNode(master StreamID, lp []byte) (StreamNode, error) {
	var n StreamNode
	els, err := readListpack(lp)
	if err != nil || len(els) == 0 {
		return n, ErrBadFormat
	}
	p := 0
	next := func() ([]byte, bool) {
		if p >= len(els) {
			return nil, false
		}
		p++
		return els[p-1], true
	}
	num := func() (int64, bool) {
		e, ok := next()
		if !ok {
			return 0, false
		}
		return parseInt(e)
	}
	live, ok1 := num()
	deleted, ok2 := num()
	nmaster, ok3 := num()
	if !ok1 || !ok2 || !ok3 || live < 0 || deleted < 0 || nmaster < 0 || nmaster > int64(len(els)) {
		return n, ErrBadFormat
	}
	masterFields := make([][]byte, 0, nmaster)
	for range nmaster {
		f, ok := next()
		if !ok {
			return n, ErrBadFormat
		}
		masterFields = append(masterFields, f)
	}
	if z, ok := num(); !ok || z != 0 {
		return n, ErrBadFormat
	}
	total := live + deleted
	if total < 0 || total > int64(len(els)) {
		return n, ErrBadFormat
	}
	var prev StreamID
	var gone int64
	for i := range total {
		flags, ok1 := num()
		dms, ok2 := num()
		dseq, ok3 := num()
		if !ok1 || !ok2 || !ok3 || flags < 0 || flags > streamFlagDeleted|streamFlagSameFields {
			return n, ErrBadFormat
		}
		id := StreamID{master.Ms + uint64(dms), master.Seq + uint64(dseq)}
		if id.compare(master) < 0 || (i > 0 && id.compare(prev) <= 0) {
			return n, ErrBadFormat
		}
		prev = id
		// the values, after each field name unless it is the master's
		nf := int64(len(masterFields))
		extra := int64(3)
		same := flags&streamFlagSameFields != 0
		if !same {
			var ok bool
			if nf, ok = num(); !ok || nf < 0 || nf > int64(len(els)) {
				return n, ErrBadFormat
			}
			extra += nf + 1
		}
		if nf == 0 {
			return n, ErrBadFormat
		}
		fields := make([][]byte, 0, 2*nf)
		for j := range nf {
			f := masterFields[min(j, int64(len(masterFields)-1))]
			if !same {
				var ok bool
				if f, ok = next(); !ok {
					return n, ErrBadFormat
				}
			}
			v, ok := next()
			if !ok {
				return n, ErrBadFormat
			}
			fields = append(fields, f, v)
		}
		if c, ok := num(); !ok || c != nf+extra {
			return n, ErrBadFormat
		}
		if flags&streamFlagDeleted != 0 {
			gone++
			continue
		}
		n.Entries = append(n.Entries, StreamEntry{ID: id, Fields: fields})
	}
	if p != len(els) || gone != deleted {
		return n, ErrBadFormat
	}
	n.Fill = uint64(total)
	return n, nil
}
