package resp

import "github.com/mayfly/mayfly/internal/kv"

// What Redis 7.2's command table says beyond arity, flags and keys: the
// tips of COMMAND INFO and the deprecation notes of COMMAND DOCS, for the
// commands mayfly serves (src/commands/*.json).

// commandTips are the command tips (COMMAND INFO's eighth field) by
// command name.
var commandTips = map[string][]string{
	"randomkey":    {"request_policy:all_shards", "response_policy:special", "nondeterministic_output"},
	"srandmember":  {"nondeterministic_output"},
	"hrandfield":   {"nondeterministic_output"},
	"zrandmember":  {"nondeterministic_output"},
	"spop":         {"nondeterministic_output"},
	"scan":         {"nondeterministic_output", "request_policy:special", "response_policy:special"},
	"sscan":        {"nondeterministic_output"},
	"hscan":        {"nondeterministic_output"},
	"zscan":        {"nondeterministic_output"},
	"time":         {"nondeterministic_output"},
	"keys":         {"request_policy:all_shards", "nondeterministic_output_order"},
	"dbsize":       {"request_policy:all_shards", "response_policy:agg_sum"},
	"flushall":     {"request_policy:all_shards", "response_policy:all_succeeded"},
	"flushdb":      {"request_policy:all_shards", "response_policy:all_succeeded"},
	"ping":         {"request_policy:all_shards", "response_policy:all_succeeded"},
	"info":         {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
	"smembers":     {"nondeterministic_output_order"},
	"sinter":       {"nondeterministic_output_order"},
	"sunion":       {"nondeterministic_output_order"},
	"sdiff":        {"nondeterministic_output_order"},
	"hgetall":      {"nondeterministic_output_order"},
	"hkeys":        {"nondeterministic_output_order"},
	"hvals":        {"nondeterministic_output_order"},
	"mset":         {"request_policy:multi_shard", "response_policy:all_succeeded"},
	"mget":         {"request_policy:multi_shard"},
	"del":          {"request_policy:multi_shard", "response_policy:agg_sum"},
	"unlink":       {"request_policy:multi_shard", "response_policy:agg_sum"},
	"exists":       {"request_policy:multi_shard", "response_policy:agg_sum"},
	"touch":        {"request_policy:multi_shard", "response_policy:agg_sum"},
	"command":      {"nondeterministic_output_order"},
	"client|list":  {"nondeterministic_output"},
	"client|info":  {"nondeterministic_output"},
	"client|id":    {"nondeterministic_output"},
	"config|get":   {"nondeterministic_output_order"},
	"command|list": {"nondeterministic_output_order"},
	"command|docs": {"nondeterministic_output_order"},
	"command|info": {"nondeterministic_output_order"},
	"lastsave":     {"nondeterministic_output"},

	"latency|latest":  {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
	"latency|history": {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
	"latency|doctor":  {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
	"latency|graph":   {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"},
	"latency|reset":   {"request_policy:all_nodes", "response_policy:agg_sum"},

	"xadd":            {"nondeterministic_output"},
	"xtrim":           {"nondeterministic_output"},
	"xpending":        {"nondeterministic_output"},
	"xclaim":          {"nondeterministic_output"},
	"xautoclaim":      {"nondeterministic_output"},
	"xinfo|consumers": {"nondeterministic_output"},
}

// deprecation is COMMAND DOCS's note on a deprecated command.
type deprecation struct {
	since, replacedBy string
}

// deprecatedCommands are the commands Redis 7.2 documents as deprecated.
var deprecatedCommands = map[string]deprecation{
	"brpoplpush":           {"6.2.0", "`BLMOVE` with the `RIGHT` and `LEFT` arguments"},
	"rpoplpush":            {"6.2.0", "`LMOVE` with the `RIGHT` and `LEFT` arguments"},
	"getset":               {"6.2.0", "`SET` with the `!GET` argument"},
	"setnx":                {"2.6.12", "`SET` with the `NX` argument"},
	"setex":                {"2.6.12", "`SET` with the `EX` argument"},
	"psetex":               {"2.6.12", "`SET` with the `PX` argument"},
	"hmset":                {"4.0.0", "`HSET` with multiple field-value pairs"},
	"substr":               {"2.0.0", "`GETRANGE`"},
	"quit":                 {"7.2.0", "just closing the connection"},
	"zrevrange":            {"6.2.0", "`ZRANGE` with the `REV` argument"},
	"zrangebyscore":        {"6.2.0", "`ZRANGE` with the `BYSCORE` argument"},
	"zrevrangebyscore":     {"6.2.0", "`ZRANGE` with the `REV` and `BYSCORE` arguments"},
	"zrangebylex":          {"6.2.0", "`ZRANGE` with the `BYLEX` argument"},
	"zrevrangebylex":       {"6.2.0", "`ZRANGE` with the `REV` and `BYLEX` arguments"},
	"georadius":            {"6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument"},
	"georadius_ro":         {"6.2.0", "`GEOSEARCH` with the `BYRADIUS` argument"},
	"georadiusbymember":    {"6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments"},
	"georadiusbymember_ro": {"6.2.0", "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments"},
}

// keynumSpec is a key spec whose keys follow a count argument (Redis's
// find_keys keynum): the count is at keynumIdx past the begin index, the
// first key firstKey past it, one every keyStep.
type keynumSpec struct {
	begin, keynumIdx, firstKey, keyStep int
}

// keynumCommands are the commands whose keys follow a numkeys argument.
// Key specs of mixed kinds (a destination before numkeys) list the
// destination as its own range spec first (dest > 0).
var keynumCommands = map[string]struct {
	dest int
	spec keynumSpec
}{
	"zunion":      {0, keynumSpec{1, 0, 1, 1}},
	"zinter":      {0, keynumSpec{1, 0, 1, 1}},
	"zdiff":       {0, keynumSpec{1, 0, 1, 1}},
	"zintercard":  {0, keynumSpec{1, 0, 1, 1}},
	"sintercard":  {0, keynumSpec{1, 0, 1, 1}},
	"zmpop":       {0, keynumSpec{1, 0, 1, 1}},
	"lmpop":       {0, keynumSpec{1, 0, 1, 1}},
	"bzmpop":      {0, keynumSpec{2, 0, 1, 1}},
	"blmpop":      {0, keynumSpec{2, 0, 1, 1}},
	"zunionstore": {1, keynumSpec{2, 0, 1, 1}},
	"zinterstore": {1, keynumSpec{2, 0, 1, 1}},
	"zdiffstore":  {1, keynumSpec{2, 0, 1, 1}},
	"eval":        {0, keynumSpec{2, 0, 1, 1}},
	"evalsha":     {0, keynumSpec{2, 0, 1, 1}},
	"eval_ro":     {0, keynumSpec{2, 0, 1, 1}},
	"evalsha_ro":  {0, keynumSpec{2, 0, 1, 1}},
	"fcall":       {0, keynumSpec{2, 0, 1, 1}},
	"fcall_ro":    {0, keynumSpec{2, 0, 1, 1}},
}

// keynumIndexes returns the key positions of a call of a keynum command
// (args with the name), false when the count is missing or not a valid
// number of the arguments there are.
func keynumIndexes(dest int, s keynumSpec, args [][]byte) ([]int, bool) {
	var out []int
	if dest > 0 && dest < len(args) {
		out = append(out, dest)
	}
	at := s.begin + s.keynumIdx
	if at >= len(args) {
		return nil, false
	}
	n, ok := kv.ParseInt(args[at])
	first := s.begin + s.firstKey
	if !ok || n < 0 || n > int64(len(args)) || first+int(n-1)*s.keyStep >= len(args) {
		return nil, false
	}
	for i := range int(n) {
		out = append(out, first+i*s.keyStep)
	}
	return out, true
}

// writeKeynumSpec writes a keynum key spec (COMMAND INFO's key specs).
func writeKeynumSpec(w *Writer, s keynumSpec) {
	writeBeginSearch(w, s.begin)
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("keynum")
	w.BulkString("spec")
	w.Map(3)
	w.BulkString("keynumidx")
	w.Int(int64(s.keynumIdx))
	w.BulkString("firstkey")
	w.Int(int64(s.firstKey))
	w.BulkString("keystep")
	w.Int(int64(s.keyStep))
}
