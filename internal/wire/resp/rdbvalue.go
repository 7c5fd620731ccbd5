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
	rdbKinds = map[kv.Type]rdb.Kind{kv.TypeString: rdb.String, kv.TypeList: rdb.List, kv.TypeSet: rdb.Set, kv.TypeZSet: rdb.ZSet, kv.TypeHash: rdb.Hash}
	kvTypes  = map[rdb.Kind]kv.Type{rdb.String: kv.TypeString, rdb.List: kv.TypeList, rdb.Set: kv.TypeSet, rdb.ZSet: kv.TypeZSet, rdb.Hash: kv.TypeHash}
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
	return out
}
