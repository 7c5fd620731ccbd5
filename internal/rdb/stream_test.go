package rdb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// flatEntries returns a stream's entries in order, across its nodes.
func flatEntries(s *StreamValue) []StreamEntry {
	var out []StreamEntry
	for _, n := range s.Nodes {
		out = append(out, n.Entries...)
	}
	return out
}

// equalStreams compares streams by their entries (not how nodes split
// them), counters and groups.
func equalStreams(a, b *StreamValue) bool {
	ea, eb := flatEntries(a), flatEntries(b)
	if !slices.EqualFunc(ea, eb, func(x, y StreamEntry) bool {
		return x.ID == y.ID && slices.EqualFunc(x.Fields, y.Fields, bytes.Equal)
	}) {
		return false
	}
	if a.LastID != b.LastID || a.MaxDeletedID != b.MaxDeletedID || a.EntriesAdded != b.EntriesAdded || len(a.Groups) != len(b.Groups) {
		return false
	}
	for i, g := range a.Groups {
		h := b.Groups[i]
		if !bytes.Equal(g.Name, h.Name) || g.LastID != h.LastID || g.EntriesRead != h.EntriesRead {
			return false
		}
		if !slices.EqualFunc(g.Pending, h.Pending, func(x, y StreamPending) bool {
			return x.ID == y.ID && x.DeliveryTime == y.DeliveryTime && x.DeliveryCount == y.DeliveryCount && bytes.Equal(x.Consumer, y.Consumer)
		}) {
			return false
		}
		if !slices.EqualFunc(g.Consumers, h.Consumers, func(x, y StreamConsumer) bool {
			return bytes.Equal(x.Name, y.Name) && x.SeenTime == y.SeenTime
		}) {
			return false
		}
	}
	return true
}

// xadd appends an entry as XADD does under stream-node-max-entries
// nodeMax: to the last node, or a new one once it holds nodeMax.
func xadd(s *StreamValue, nodeMax int, id StreamID, fields ...string) {
	if len(s.Nodes) == 0 || len(s.Nodes[len(s.Nodes)-1].Entries) >= nodeMax {
		s.Nodes = append(s.Nodes, StreamNode{})
	}
	n := &s.Nodes[len(s.Nodes)-1]
	n.Entries = append(n.Entries, StreamEntry{ID: id, Fields: bs(fields...)})
	n.Fill++
	s.LastID = id
	s.EntriesAdded++
}

// Redis 7.0's stream payloads: those made by XADD alone are what Dump
// writes for the same entries; all of them load to the entries, counters
// and groups the commands made, and dump back to Redis's bytes unless
// Redis kept a deleted entry in its node.
func TestGoldenStreamsOfRedis70(t *testing.T) {
	golden := readGolden(t)
	st1 := &StreamValue{}
	xadd(st1, 100, StreamID{1, 1}, "a", "1")
	st2 := &StreamValue{}
	for i := uint64(1); i <= 250; i++ {
		if i%7 == 0 {
			xadd(st2, 100, StreamID{i, 0}, "g", "x", "h", fmt.Sprintf("value number %d", i))
		} else {
			xadd(st2, 100, StreamID{i, 0}, "f", fmt.Sprint(i))
		}
	}
	for k, want := range map[string]*StreamValue{"st1": st1, "st2": st2} {
		if d := Dump(&Value{Kind: Stream, Stream: want}, DefaultConfig); !bytes.Equal(d, golden[k]) {
			t.Errorf("%s: Dump\n got %x\nwant %x", k, d, golden[k])
		}
		v, err := Load(golden[k])
		if err != nil || v.Kind != Stream || !equalStreams(v.Stream, want) {
			t.Fatalf("%s: Load = %+v, %v", k, v, err)
		}
		if len(v.Stream.Nodes) != len(want.Nodes) {
			t.Errorf("%s: %d nodes, want %d", k, len(v.Stream.Nodes), len(want.Nodes))
		}
	}

	load := func(k string) *StreamValue {
		t.Helper()
		v, err := Load(golden[k])
		if err != nil || v.Kind != Stream {
			t.Fatalf("%s: Load: %v", k, err)
		}
		return v.Stream
	}
	ids := func(es []StreamEntry) []StreamID {
		var out []StreamID
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	s3 := load("st3")
	if got := ids(flatEntries(s3)); len(got) != 6 || got[5] != (StreamID{6, 0}) || s3.EntriesAdded != 6 {
		t.Fatalf("st3 entries %v, added %d", got, s3.EntriesAdded)
	}
	if len(s3.Groups) != 2 || string(s3.Groups[0].Name) != "g1" || string(s3.Groups[1].Name) != "g2" {
		t.Fatalf("st3 groups %+v", s3.Groups)
	}
	// XGROUP CREATE with $ leaves entries-read unknown in Redis 7.0
	g1, g2 := s3.Groups[0], s3.Groups[1]
	if g1.LastID != (StreamID{3, 0}) || g1.EntriesRead != 3 || g2.LastID != (StreamID{6, 0}) || g2.EntriesRead != -1 {
		t.Errorf("st3 group positions %+v %+v", g1, g2)
	}
	owners := map[StreamID]string{}
	for _, p := range g1.Pending {
		owners[p.ID] = string(p.Consumer)
		if p.DeliveryCount != 1 || p.DeliveryTime <= 0 {
			t.Errorf("st3 pending %+v", p)
		}
	}
	if want := map[StreamID]string{{1, 0}: "alice", {2, 0}: "alice", {3, 0}: "bob"}; fmt.Sprint(owners) != fmt.Sprint(want) {
		t.Errorf("st3 owners %v, want %v", owners, want)
	}
	var names []string
	for _, c := range g1.Consumers {
		names = append(names, string(c.Name))
	}
	if fmt.Sprint(names) != "[alice bob carol]" {
		t.Errorf("st3 consumers %v", names)
	}

	s4 := load("st4")
	if len(s4.Nodes) != 0 || len(s4.Groups) != 1 || s4.Groups[0].EntriesRead != -1 {
		t.Errorf("st4 = %+v", s4)
	}

	s5 := load("st5")
	if got := fmt.Sprint(ids(flatEntries(s5))); got != "[{1 0} {3 0} {4 0} {5 0}]" || s5.MaxDeletedID != (StreamID{2, 0}) || s5.Nodes[0].Fill != 5 {
		t.Errorf("st5 entries %s, max deleted %v, fill %d", got, s5.MaxDeletedID, s5.Nodes[0].Fill)
	}

	// the payload of Redis 5: entries-added is the length, and the
	// groups' entries-read are estimated as Redis 7.0 does
	v5 := load("stv5")
	if got := fmt.Sprint(ids(flatEntries(v5))); got != "[{5 0} {6 0}]" || v5.EntriesAdded != 2 || !v5.MaxDeletedID.isZero() {
		t.Errorf("stv5 entries %s, added %d", got, v5.EntriesAdded)
	}
	if len(v5.Groups) != 2 || v5.Groups[0].EntriesRead != 1 || v5.Groups[1].EntriesRead != 0 || len(v5.Groups[0].Pending) != 4 {
		t.Errorf("stv5 groups %+v", v5.Groups)
	}

	for _, k := range []string{"st3", "st4"} {
		if d := Dump(&Value{Kind: Stream, Stream: load(k)}, DefaultConfig); !bytes.Equal(d, golden[k]) {
			t.Errorf("%s: Dump of what loaded\n got %x\nwant %x", k, d, golden[k])
		}
	}
}

func (id StreamID) isZero() bool { return id == StreamID{} }

func randStream(r *rand.Rand) *StreamValue {
	s := &StreamValue{}
	nodeMax := 1 + r.IntN(5)
	id := StreamID{uint64(r.IntN(3)), uint64(r.IntN(3))}
	for range r.IntN(30) {
		if r.IntN(3) == 0 {
			id = StreamID{id.Ms + uint64(r.IntN(1<<20)), uint64(r.IntN(10))}
		} else {
			id.Seq += 1 + uint64(r.IntN(1<<40))
		}
		n := 1 + r.IntN(3)
		var fields []string
		for j := range n {
			fields = append(fields, []string{"f", "g", "123", ""}[(j+r.IntN(2))%4], string(randBytes(r)))
		}
		xadd(s, nodeMax, id, fields...)
	}
	s.LastID.Seq += uint64(r.IntN(2))
	s.EntriesAdded += uint64(r.IntN(3))
	if r.IntN(2) == 0 {
		s.MaxDeletedID = StreamID{1, 2}
	}
	for g := range r.IntN(3) {
		grp := StreamGroup{Name: fmt.Appendf(nil, "g%d", g), LastID: StreamID{uint64(r.IntN(9)), 0}, EntriesRead: int64(r.IntN(5)) - 1}
		nc := r.IntN(3)
		for c := range nc {
			grp.Consumers = append(grp.Consumers, StreamConsumer{Name: fmt.Appendf(nil, "c%d", c), SeenTime: r.Int64()})
		}
		if nc > 0 {
			for _, e := range flatEntries(s) {
				if r.IntN(2) == 0 {
					grp.Pending = append(grp.Pending, StreamPending{ID: e.ID, DeliveryTime: r.Int64(), DeliveryCount: r.Uint64(),
						Consumer: grp.Consumers[r.IntN(nc)].Name})
				}
			}
		}
		s.Groups = append(s.Groups, grp)
	}
	return s
}

func TestStreamRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		s := randStream(r)
		v, err := Load(Dump(&Value{Kind: Stream, Stream: s}, DefaultConfig))
		if err != nil {
			t.Fatalf("stream %d: Load of own dump: %v", i, err)
		}
		if !equalStreams(v.Stream, s) {
			t.Fatalf("stream %d: round trip changed it:\n got %+v\nwant %+v", i, v.Stream, s)
		}
		if len(v.Stream.Nodes) != len(s.Nodes) {
			t.Fatalf("stream %d: %d nodes, want %d", i, len(v.Stream.Nodes), len(s.Nodes))
		}
	}
}

// Every inconsistency of a stream payload is ErrBadFormat.
func TestStreamBadFormat(t *testing.T) {
	base := &StreamValue{}
	xadd(base, 2, StreamID{1, 0}, "a", "1")
	xadd(base, 2, StreamID{2, 0}, "a", "2")
	xadd(base, 2, StreamID{3, 0}, "b", "3")
	base.Groups = []StreamGroup{{Name: []byte("g"), Consumers: []StreamConsumer{{Name: []byte("c")}},
		Pending: []StreamPending{{ID: StreamID{1, 0}, Consumer: []byte("c")}}}}
	good := Dump(&Value{Kind: Stream, Stream: base}, Config{})
	if _, err := Load(good); err != nil {
		t.Fatal(err)
	}
	obj := good[:len(good)-10]
	cases := map[string]func(s *StreamValue){
		"last id below an entry": func(s *StreamValue) { s.LastID = StreamID{2, 5} },
		"added below length":     func(s *StreamValue) { s.EntriesAdded = 1 },
		"entries out of order":   func(s *StreamValue) { s.Nodes[1].Entries[0].ID = StreamID{1, 5} },
		"duplicate group":        func(s *StreamValue) { s.Groups = append(s.Groups, s.Groups[0]) },
		"pending without owner":  func(s *StreamValue) { s.Groups[0].Pending[0].Consumer = []byte("nobody") },
		"duplicate consumer": func(s *StreamValue) {
			s.Groups[0].Consumers = append(s.Groups[0].Consumers, s.Groups[0].Consumers[0])
		},
		"duplicate pending": func(s *StreamValue) { s.Groups[0].Pending = append(s.Groups[0].Pending, s.Groups[0].Pending[0]) },
	}
	for name, mutate := range cases {
		s := *base
		s.Nodes = []StreamNode{{Entries: slices.Clone(base.Nodes[0].Entries)}, {Entries: slices.Clone(base.Nodes[1].Entries)}}
		g := base.Groups[0]
		g.Pending, g.Consumers = slices.Clone(g.Pending), slices.Clone(g.Consumers)
		s.Groups = []StreamGroup{g}
		mutate(&s)
		var w writer
		w.byte(typeStreamLP2)
		w.stream(&s)
		if _, err := Load(withFooter(w.b)); err != ErrBadFormat {
			t.Errorf("%s: %v, want ErrBadFormat", name, err)
		}
	}
	// every truncation, and every single changed byte, is refused or loads
	// to a stream that dumps and loads back the same; none panics
	for i := 1; i < len(obj); i++ {
		if _, err := Load(withFooter(obj[:i])); err != ErrBadFormat {
			t.Errorf("truncated at %d: %v", i, err)
		}
	}
	for i := 1; i < len(obj); i++ {
		for _, x := range []byte{1, 0x80, 0xff} {
			c := slices.Clone(obj)
			c[i] ^= x
			if v, err := Load(withFooter(c)); err == nil {
				if again, err := Load(Dump(v, DefaultConfig)); err != nil || !equalStreams(again.Stream, v.Stream) {
					t.Fatalf("byte %d ^ %#x loads but does not round-trip: %v", i, x, err)
				}
			}
		}
	}
}
