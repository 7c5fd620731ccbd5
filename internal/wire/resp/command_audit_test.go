package resp_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// redis70Commands is the whole COMMAND LIST of redis-server 7.0.15 (Debian's
// build, default configuration, no modules loaded), sorted: obtained with
// `redis-cli COMMAND LIST | sort`.
var redis70Commands = []string{
	"acl", "acl|cat", "acl|deluser", "acl|dryrun", "acl|genpass", "acl|getuser", "acl|help",
	"acl|list", "acl|load", "acl|log", "acl|save", "acl|setuser", "acl|users", "acl|whoami", "append",
	"asking", "auth", "bgrewriteaof", "bgsave", "bitcount", "bitfield", "bitfield_ro", "bitop",
	"bitpos", "blmove", "blmpop", "blpop", "brpop", "brpoplpush", "bzmpop", "bzpopmax", "bzpopmin",
	"client", "client|caching", "client|getname", "client|getredir", "client|help", "client|id",
	"client|info", "client|kill", "client|list", "client|no-evict", "client|pause", "client|reply",
	"client|setname", "client|tracking", "client|trackinginfo", "client|unblock", "client|unpause",
	"cluster", "cluster|addslots", "cluster|addslotsrange", "cluster|bumpepoch",
	"cluster|count-failure-reports", "cluster|countkeysinslot", "cluster|delslots",
	"cluster|delslotsrange", "cluster|failover", "cluster|flushslots", "cluster|forget",
	"cluster|getkeysinslot", "cluster|help", "cluster|info", "cluster|keyslot", "cluster|links",
	"cluster|meet", "cluster|myid", "cluster|nodes", "cluster|replicas", "cluster|replicate",
	"cluster|reset", "cluster|saveconfig", "cluster|set-config-epoch", "cluster|setslot",
	"cluster|shards", "cluster|slaves", "cluster|slots", "command", "command|count", "command|docs",
	"command|getkeys", "command|getkeysandflags", "command|help", "command|info", "command|list",
	"config", "config|get", "config|help", "config|resetstat", "config|rewrite", "config|set", "copy",
	"dbsize", "debug", "decr", "decrby", "del", "discard", "dump", "echo", "eval", "eval_ro",
	"evalsha", "evalsha_ro", "exec", "exists", "expire", "expireat", "expiretime", "failover",
	"fcall", "fcall_ro", "flushall", "flushdb", "function", "function|delete", "function|dump",
	"function|flush", "function|help", "function|kill", "function|list", "function|load",
	"function|restore", "function|stats", "geoadd", "geodist", "geohash", "geopos", "georadius",
	"georadius_ro", "georadiusbymember", "georadiusbymember_ro", "geosearch", "geosearchstore", "get",
	"getbit", "getdel", "getex", "getrange", "getset", "hdel", "hello", "hexists", "hget", "hgetall",
	"hincrby", "hincrbyfloat", "hkeys", "hlen", "hmget", "hmset", "hrandfield", "hscan", "hset",
	"hsetnx", "hstrlen", "hvals", "incr", "incrby", "incrbyfloat", "info", "keys", "lastsave",
	"latency", "latency|doctor", "latency|graph", "latency|help", "latency|histogram",
	"latency|history", "latency|latest", "latency|reset", "lcs", "lindex", "linsert", "llen", "lmove",
	"lmpop", "lolwut", "lpop", "lpos", "lpush", "lpushx", "lrange", "lrem", "lset", "ltrim", "memory",
	"memory|doctor", "memory|help", "memory|malloc-stats", "memory|purge", "memory|stats",
	"memory|usage", "mget", "migrate", "module", "module|help", "module|list", "module|load",
	"module|loadex", "module|unload", "monitor", "move", "mset", "msetnx", "multi", "object",
	"object|encoding", "object|freq", "object|help", "object|idletime", "object|refcount", "persist",
	"pexpire", "pexpireat", "pexpiretime", "pfadd", "pfcount", "pfdebug", "pfmerge", "pfselftest",
	"ping", "psetex", "psubscribe", "psync", "pttl", "publish", "pubsub", "pubsub|channels",
	"pubsub|help", "pubsub|numpat", "pubsub|numsub", "pubsub|shardchannels", "pubsub|shardnumsub",
	"punsubscribe", "quit", "randomkey", "readonly", "readwrite", "rename", "renamenx", "replconf",
	"replicaof", "reset", "restore", "restore-asking", "role", "rpop", "rpoplpush", "rpush", "rpushx",
	"sadd", "save", "scan", "scard", "script", "script|debug", "script|exists", "script|flush",
	"script|help", "script|kill", "script|load", "sdiff", "sdiffstore", "select", "set", "setbit",
	"setex", "setnx", "setrange", "shutdown", "sinter", "sintercard", "sinterstore", "sismember",
	"slaveof", "slowlog", "slowlog|get", "slowlog|help", "slowlog|len", "slowlog|reset", "smembers",
	"smismember", "smove", "sort", "sort_ro", "spop", "spublish", "srandmember", "srem", "sscan",
	"ssubscribe", "strlen", "subscribe", "substr", "sunion", "sunionstore", "sunsubscribe", "swapdb",
	"sync", "time", "touch", "ttl", "type", "unlink", "unsubscribe", "unwatch", "wait", "watch",
	"xack", "xadd", "xautoclaim", "xclaim", "xdel", "xgroup", "xgroup|create",
	"xgroup|createconsumer", "xgroup|delconsumer", "xgroup|destroy", "xgroup|help", "xgroup|setid",
	"xinfo", "xinfo|consumers", "xinfo|groups", "xinfo|help", "xinfo|stream", "xlen", "xpending",
	"xrange", "xread", "xreadgroup", "xrevrange", "xsetid", "xtrim", "zadd", "zcard", "zcount",
	"zdiff", "zdiffstore", "zincrby", "zinter", "zintercard", "zinterstore", "zlexcount", "zmpop",
	"zmscore", "zpopmax", "zpopmin", "zrandmember", "zrange", "zrangebylex", "zrangebyscore",
	"zrangestore", "zrank", "zrem", "zremrangebylex", "zremrangebyrank", "zremrangebyscore",
	"zrevrange", "zrevrangebylex", "zrevrangebyscore", "zrevrank", "zscan", "zscore", "zunion",
	"zunionstore",
}

// refusedCommands reads the commands README.md's "Redis: commands not
// served" section names (in backquotes, as Redis spells them; a command
// names all its subcommands, "CLIENT PAUSE" one), as COMMAND LIST's names.
func refusedCommands(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Redis: commands not served\n")
	if !ok {
		t.Fatal("README.md has no section \"Redis: commands not served\"")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	out := map[string]bool{}
	for _, row := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		cell, _, _ := strings.Cut(row[2:], " | ")
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
			words := strings.Fields(strings.ToLower(m[1]))
			if len(words) > 2 {
				words = words[:2] // REPLICAOF host port: the command itself
			}
			if len(words) == 2 && (words[1] == "host" || words[1] == "and") {
				words = words[:1]
			}
			out[strings.Join(words, "|")] = true
		}
	}
	return out
}

// TestRedisCommandListIsServedOrRefused: every command and subcommand of
// Redis 7.0 is either in mayfly's command table (a command without a
// subcommand table serves all its subcommands) or refused in README.md.
func TestRedisCommandListIsServedOrRefused(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	list, err := c.Do(t.Context(), "command", "list").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	hasSubs := map[string]bool{}
	for _, n := range list {
		served[n] = true
		if parent, _, ok := strings.Cut(n, "|"); ok {
			hasSubs[parent] = true
		}
	}
	refused := refusedCommands(t)
	for _, n := range redis70Commands {
		parent, _, isSub := strings.Cut(n, "|")
		switch {
		case served[n], isSub && served[parent] && !hasSubs[parent]:
		case refused[n], isSub && refused[parent]:
		default:
			t.Errorf("Redis 7.0's %q is neither served nor listed in README.md's \"Redis: commands not served\"", n)
		}
	}
}
