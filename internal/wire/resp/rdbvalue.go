package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/rdb"
)

// rdbConfig reads the CONFIG parameters that choose a value's encoding.
func (x *cmdCtx) rdbConfig() rdb.Config {
	num := func(name string, def int64) int64 {
		n, err := strconv.ParseInt(x.s.cfg.get(name), 10, 64)
		if err != nil {
			return def
		}
		return n
	}
	d := rdb.DefaultConfig
	return rdb.Config{
		ListMaxListpackSize:    num("list-max-listpack-size", d.ListMaxListpackSize),
		SetMaxIntsetEntries:    num("set-max-intset-entries", d.SetMaxIntsetEntries),
		HashMaxListpackEntries: num("hash-max-listpack-entries", d.HashMaxListpackEntries),
		HashMaxListpackValue:   num("hash-max-listpack-value", d.HashMaxListpackValue),
		ZSetMaxListpackEntries: num("zset-max-listpack-entries", d.ZSetMaxListpackEntries),
		ZSetMaxListpackValue:   num("zset-max-listpack-value", d.ZSetMaxListpackValue),
		Compression:            x.s.cfg.get("rdbcompression") != "no",
	}
}

// The kinds of kv's types in the serialized format, both ways.
var (
	rdbKinds = map[kv.Type]rdb.Kind{kv.TypeString: rdb.String, kv.TypeList: rdb.List, kv.TypeSet: rdb.Set, kv.TypeZSet: rdb.ZSet, kv.TypeHash: rdb.Hash, kv.TypeStream: rdb.Stream}
	kvTypes  = map[rdb.Kind]kv.Type{rdb.String: kv.TypeString, rdb.List: kv.TypeList, rdb.Set: kv.TypeSet, rdb.ZSet: kv.TypeZSet, rdb.Hash: kv.TypeHash, rdb.Stream: kv.TypeStream}
)

// toRDB converts a whole value read from kv.
func toRDB(v *kv.Value) *rdb.Value {
	out := &rdb.Value{Kind: rdbKinds[v.Type], Str: v.String, Items: v.Items}
	for _, p := range v.Pairs {
		out.Pairs = append(out.Pairs, rdb.Pair{Field: p.Field, Value: p.Value})
	}
	for _, m := range v.Members {
		out.Members = append(out.Members, rdb.Member{Member: m.Member, Score: m.Score})
	}
	if v.Stream != nil {
		out.Stream = toRDBStream(v.Stream)
	}
	return out
}

// fromRDB converts a loaded value for kv.
func fromRDB(v *rdb.Value) kv.Value {
	out := kv.Value{Type: kvTypes[v.Kind], String: v.Str, Items: v.Items}
	for _, p := range v.Pairs {
		out.Pairs = append(out.Pairs, kv.HashPair{Field: p.Field, Value: p.Value})
	}
	for _, m := range v.Members {
		out.Members = append(out.Members, kv.ZMember{Member: m.Member, Score: m.Score})
	}
	if v.Stream != nil {
		out.Stream = fromRDBStream(v.Stream)
	}
	return out
}

func toRDBStream(s *kv.StreamValue) *rdb.StreamValue {
	id := func(i kv.StreamID) rdb.StreamID { return rdb.StreamID{Ms: i.Ms, Seq: i.Seq} }
	out := &rdb.StreamValue{LastID: id(s.LastID), MaxDeletedID: id(s.MaxDeletedID), EntriesAdded: s.EntriesAdded}
	for _, n := range s.Nodes {
		rn := rdb.StreamNode{Fill: n.Fill}
		for _, e := range n.Entries {
			rn.Entries = append(rn.Entries, rdb.StreamEntry{ID: id(e.ID), Fields: e.Fields})
		}
		out.Nodes = append(out.Nodes, rn)
	}
	for _, g := range s.Groups {
		rg := rdb.StreamGroup{Name: g.Name, LastID: id(g.LastID), EntriesRead: g.EntriesRead}
		for _, p := range g.Pending {
			rg.Pending = append(rg.Pending, rdb.StreamPending{ID: id(p.ID), DeliveryTime: p.DeliveryTime,
				DeliveryCount: uint64(p.DeliveryCount), Consumer: p.Consumer})
		}
		for _, c := range g.Consumers {
			rg.Consumers = append(rg.Consumers, rdb.StreamConsumer{Name: c.Name, SeenTime: c.SeenTime})
		}
		out.Groups = append(out.Groups, rg)
	}
	return out
}

func fromRDBStream(s *rdb.StreamValue) *kv.StreamValue {
	id := func(i rdb.StreamID) kv.StreamID { return kv.StreamID{Ms: i.Ms, Seq: i.Seq} }
	out := &kv.StreamValue{LastID: id(s.LastID), MaxDeletedID: id(s.MaxDeletedID), EntriesAdded: s.EntriesAdded}
	for _, n := range s.Nodes {
		kn := kv.StreamNode{Fill: n.Fill}
		for _, e := range n.Entries {
			kn.Entries = append(kn.Entries, kv.StreamEntry{ID: id(e.ID), Fields: e.Fields})
		}
		out.Nodes = append(out.Nodes, kn)
	}
	for _, g := range s.Groups {
		kg := kv.StreamGroupValue{Name: g.Name, LastID: id(g.LastID), EntriesRead: g.EntriesRead}
		for _, p := range g.Pending {
			kg.Pending = append(kg.Pending, kv.PendingEntry{ID: id(p.ID), DeliveryTime: p.DeliveryTime,
				DeliveryCount: int64(p.DeliveryCount), Consumer: p.Consumer})
		}
		for _, c := range g.Consumers {
			kg.Consumers = append(kg.Consumers, kv.StreamConsumerValue{Name: c.Name, SeenTime: c.SeenTime})
		}
		out.Groups = append(out.Groups, kg)
	}
	return out
}
