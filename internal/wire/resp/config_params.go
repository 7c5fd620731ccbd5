package resp

import "math"

// The CONFIG parameters of Redis 7.0: every name CONFIG SET accepts, its
// alias if it has one (both names share one value), its type, bounds,
// default and whether it may change at runtime. Most only store what they
// are set to; the few mayfly acts on get their behaviour in newConfig.

// paramKind is how a parameter's value is parsed and shown.
type paramKind uint8

const (
	kindBool    paramKind = iota // yes or no
	kindString                   // any string
	kindEnum                     // one name of a fixed list (several with multiArg)
	kindNumber                   // an integer within [lo, hi]
	kindSpecial                  // parsed by the spec's parse function
)

// paramFlags are Redis's config flags that change what CONFIG does.
type paramFlags uint8

const (
	// immutable parameters are set only at startup: CONFIG SET refuses them.
	immutable paramFlags = 1 << iota
	// protected parameters are refused at runtime because
	// enable-protected-configs is no.
	protected
	// hidden parameters answer CONFIG GET only by exact name, never a pattern.
	hidden
	// multiArg values are split on single spaces before parsing.
	multiArg
)

// numFlags say which spellings a number accepts besides a plain integer.
type numFlags uint8

const (
	numMemory   numFlags = 1 << iota // 1k, 1kb, 1m, 1mb, 1g, 1gb
	numPercent                       // N%, kept as -N
	numOctal                         // shown in octal
	numUnsigned                      // bounds are compared as unsigned 64-bit values
)

type enumValue struct {
	name string
	val  int
}

// paramSpec describes one parameter.
type paramSpec struct {
	name, alias string
	kind        paramKind
	flags       paramFlags
	def         string
	// Numbers.
	lo, hi int64
	num    numFlags
	// Enums.
	enum []enumValue
	// valid, when set, checks a value that parsed and returns an error
	// message, or "".
	valid func(v string) string
	// parse, for kindSpecial, validates the value's arguments and returns
	// its canonical form or an error message.
	parse func(c *config, args []string) (string, string)
}

const (
	intMax  = math.MaxInt32
	intMin  = math.MinInt32
	uintMax = math.MaxUint32
	longMax = math.MaxInt64
)

// ullMax is ULLONG_MAX as an int64 bit pattern (compared as unsigned).
const ullMax = -1

func boolParam(name, alias string, flags paramFlags, def bool) paramSpec {
	d := "no"
	if def {
		d = "yes"
	}
	return paramSpec{name: name, alias: alias, kind: kindBool, flags: flags, def: d}
}

func stringParam(name, alias string, flags paramFlags, def string) paramSpec {
	return paramSpec{name: name, alias: alias, kind: kindString, flags: flags, def: def}
}

func enumParam(name string, flags paramFlags, def string, values ...enumValue) paramSpec {
	return paramSpec{name: name, kind: kindEnum, flags: flags, def: def, enum: values}
}

func numParam(name, alias string, flags paramFlags, lo, hi, def int64, num numFlags) paramSpec {
	p := paramSpec{name: name, alias: alias, kind: kindNumber, flags: flags, lo: lo, hi: hi, num: num}
	p.def = formatNumber(&p, def)
	return p
}

func specialParam(name, alias string, flags paramFlags, def string, parse func(*config, []string) (string, string)) paramSpec {
	return paramSpec{name: name, alias: alias, kind: kindSpecial, flags: flags | multiArg, def: def, parse: parse}
}

func names(ns ...string) []enumValue {
	out := make([]enumValue, len(ns))
	for i, n := range ns {
		out[i] = enumValue{n, i}
	}
	return out
}

var (
	yesNoLocal    = []enumValue{{"no", 0}, {"yes", 1}, {"local", 2}}
	shutdownFlags = []enumValue{{"default", 0}, {"save", 1}, {"nosave", 2}, {"now", 4}, {"force", 8}}
)

// redisParams is Redis 7.0's parameter table (with TLS support built in).
var redisParams = []paramSpec{
	boolParam("rdbchecksum", "", immutable, true),
	boolParam("daemonize", "", immutable, false),
	boolParam("io-threads-do-reads", "", immutable, false),
	boolParam("always-show-logo", "", immutable, false),
	boolParam("protected-mode", "", 0, true),
	boolParam("rdbcompression", "", 0, true),
	boolParam("rdb-del-sync-files", "", 0, false),
	boolParam("activerehashing", "", 0, true),
	boolParam("stop-writes-on-bgsave-error", "", 0, true),
	boolParam("set-proc-title", "", immutable, true),
	boolParam("dynamic-hz", "", 0, true),
	boolParam("lazyfree-lazy-eviction", "", 0, false),
	boolParam("lazyfree-lazy-expire", "", 0, false),
	boolParam("lazyfree-lazy-server-del", "", 0, false),
	boolParam("lazyfree-lazy-user-del", "", 0, false),
	boolParam("lazyfree-lazy-user-flush", "", 0, false),
	boolParam("repl-disable-tcp-nodelay", "", 0, false),
	boolParam("repl-diskless-sync", "", 0, true),
	boolParam("aof-rewrite-incremental-fsync", "", 0, true),
	boolParam("no-appendfsync-on-rewrite", "", 0, false),
	boolParam("cluster-require-full-coverage", "", 0, true),
	boolParam("rdb-save-incremental-fsync", "", 0, true),
	boolParam("aof-load-truncated", "", 0, true),
	boolParam("aof-use-rdb-preamble", "", 0, true),
	boolParam("aof-timestamp-enabled", "", 0, false),
	boolParam("cluster-replica-no-failover", "cluster-slave-no-failover", 0, false),
	boolParam("replica-lazy-flush", "slave-lazy-flush", 0, false),
	boolParam("replica-serve-stale-data", "slave-serve-stale-data", 0, true),
	boolParam("replica-read-only", "slave-read-only", 0, true),
	boolParam("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0, true),
	boolParam("jemalloc-bg-thread", "", 0, true),
	boolParam("activedefrag", "", 0, false),
	boolParam("syslog-enabled", "", immutable, false),
	boolParam("cluster-enabled", "", immutable, false),
	boolParam("appendonly", "", 0, false),
	boolParam("cluster-allow-reads-when-down", "", 0, false),
	boolParam("cluster-allow-pubsubshard-when-down", "", 0, true),
	boolParam("crash-log-enabled", "", 0, true),
	boolParam("crash-memcheck-enabled", "", 0, true),
	boolParam("use-exit-on-panic", "", hidden, false),
	boolParam("disable-thp", "", immutable, true),
	boolParam("cluster-allow-replica-migration", "", 0, true),
	boolParam("replica-announced", "", 0, true),
	boolParam("latency-tracking", "", 0, true),
	boolParam("aof-disable-auto-gc", "", 0, false),
	boolParam("replica-ignore-disk-write-errors", "", 0, false),
	boolParam("tls-cluster", "", 0, false),
	boolParam("tls-replication", "", 0, false),
	boolParam("tls-prefer-server-ciphers", "", 0, false),
	boolParam("tls-session-caching", "", 0, true),

	stringParam("aclfile", "", immutable, ""),
	stringParam("unixsocket", "", immutable, ""),
	stringParam("pidfile", "", immutable, ""),
	stringParam("replica-announce-ip", "slave-announce-ip", 0, ""),
	stringParam("masteruser", "", 0, ""),
	stringParam("cluster-announce-ip", "", 0, ""),
	stringParam("cluster-config-file", "", immutable, "nodes.conf"),
	{name: "cluster-announce-hostname", kind: kindString, valid: validHostname},
	stringParam("syslog-ident", "", immutable, "redis"),
	{name: "dbfilename", kind: kindString, flags: protected, def: "dump.rdb", valid: baseNameOnly("dbfilename can't be a path, just a filename")},
	stringParam("appendfilename", "", immutable, "appendonly.aof"),
	stringParam("appenddirname", "", immutable, "appendonlydir"),
	stringParam("server_cpulist", "", immutable, ""),
	stringParam("bio_cpulist", "", immutable, ""),
	stringParam("aof_rewrite_cpulist", "", immutable, ""),
	stringParam("bgsave_cpulist", "", immutable, ""),
	stringParam("ignore-warnings", "", 0, ""),
	{name: "proc-title-template", kind: kindString, def: "{title} {listen-addr} {server-mode}", valid: validProcTitle},
	stringParam("bind-source-addr", "", 0, ""),
	stringParam("logfile", "", immutable, ""),
	stringParam("masterauth", "", 0, ""),
	stringParam("requirepass", "", 0, ""),
	stringParam("tls-cert-file", "", 0, ""),
	stringParam("tls-key-file", "", 0, ""),
	stringParam("tls-key-file-pass", "", 0, ""),
	stringParam("tls-client-cert-file", "", 0, ""),
	stringParam("tls-client-key-file", "", 0, ""),
	stringParam("tls-client-key-file-pass", "", 0, ""),
	stringParam("tls-dh-params-file", "", 0, ""),
	stringParam("tls-ca-cert-file", "", 0, ""),
	stringParam("tls-ca-cert-dir", "", 0, ""),
	stringParam("tls-protocols", "", 0, ""),
	stringParam("tls-ciphers", "", 0, ""),
	stringParam("tls-ciphersuites", "", 0, ""),

	enumParam("supervised", immutable, "no", enumValue{"upstart", 1}, enumValue{"systemd", 2}, enumValue{"auto", 3}, enumValue{"no", 0}),
	enumParam("syslog-facility", immutable, "local0", names("user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7")...),
	enumParam("repl-diskless-load", 0, "disabled", names("disabled", "on-empty-db", "swapdb")...),
	enumParam("loglevel", 0, "notice", names("debug", "verbose", "notice", "warning")...),
	enumParam("maxmemory-policy", 0, "noeviction", names("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction")...),
	enumParam("appendfsync", 0, "everysec", names("everysec", "always", "no")...),
	enumParam("oom-score-adj", 0, "no", enumValue{"no", 0}, enumValue{"yes", 1}, enumValue{"relative", 1}, enumValue{"absolute", 2}),
	enumParam("acl-pubsub-default", 0, "resetchannels", enumValue{"allchannels", 1}, enumValue{"resetchannels", 0}),
	enumParam("sanitize-dump-payload", 0, "no", names("no", "yes", "clients")...),
	enumParam("enable-protected-configs", immutable, "no", yesNoLocal...),
	enumParam("enable-debug-command", immutable, "no", yesNoLocal...),
	enumParam("enable-module-command", immutable, "no", yesNoLocal...),
	enumParam("cluster-preferred-endpoint-type", 0, "ip", names("ip", "hostname", "unknown-endpoint")...),
	enumParam("propagation-error-behavior", 0, "ignore", names("ignore", "panic", "panic-on-replicas")...),
	enumParam("shutdown-on-sigint", multiArg, "default", shutdownFlags...),
	enumParam("shutdown-on-sigterm", multiArg, "default", shutdownFlags...),
	enumParam("tls-auth-clients", 0, "yes", names("no", "yes", "optional")...),

	numParam("databases", "", immutable, 1, intMax, 16, 0),
	numParam("port", "", 0, 0, 65535, 6379, 0),
	numParam("io-threads", "", immutable, 1, 128, 1, 0),
	numParam("auto-aof-rewrite-percentage", "", 0, 0, intMax, 100, 0),
	numParam("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, 0, intMax, 10, 0),
	numParam("list-max-listpack-size", "list-max-ziplist-size", 0, intMin, intMax, -2, 0),
	numParam("tcp-keepalive", "", 0, 0, intMax, 300, 0),
	numParam("cluster-migration-barrier", "", 0, 0, intMax, 1, 0),
	numParam("active-defrag-cycle-min", "", 0, 1, 99, 1, 0),
	numParam("active-defrag-cycle-max", "", 0, 1, 99, 25, 0),
	numParam("active-defrag-threshold-lower", "", 0, 0, 1000, 10, 0),
	numParam("active-defrag-threshold-upper", "", 0, 0, 1000, 100, 0),
	numParam("lfu-log-factor", "", 0, 0, intMax, 10, 0),
	numParam("lfu-decay-time", "", 0, 0, intMax, 1, 0),
	numParam("replica-priority", "slave-priority", 0, 0, intMax, 100, 0),
	numParam("repl-diskless-sync-delay", "", 0, 0, intMax, 5, 0),
	numParam("maxmemory-samples", "", 0, 1, intMax, 5, 0),
	numParam("maxmemory-eviction-tenacity", "", 0, 0, 100, 10, 0),
	numParam("timeout", "", 0, 0, intMax, 0, 0),
	numParam("replica-announce-port", "slave-announce-port", 0, 0, 65535, 0, 0),
	numParam("tcp-backlog", "", immutable, 0, intMax, 511, 0),
	numParam("cluster-port", "", immutable, 0, 65535, 0, 0),
	numParam("cluster-announce-bus-port", "", 0, 0, 65535, 0, 0),
	numParam("cluster-announce-port", "", 0, 0, 65535, 0, 0),
	numParam("cluster-announce-tls-port", "", 0, 0, 65535, 0, 0),
	numParam("repl-timeout", "", 0, 1, intMax, 60, 0),
	numParam("repl-ping-replica-period", "repl-ping-slave-period", 0, 1, intMax, 10, 0),
	numParam("list-compress-depth", "", 0, 0, intMax, 0, 0),
	numParam("rdb-key-save-delay", "", hidden, intMin, intMax, 0, 0),
	numParam("key-load-delay", "", hidden, intMin, intMax, 0, 0),
	numParam("active-expire-effort", "", 0, 1, 10, 1, 0),
	numParam("hz", "", 0, 0, intMax, 10, 0),
	numParam("min-replicas-to-write", "min-slaves-to-write", 0, 0, intMax, 0, 0),
	numParam("min-replicas-max-lag", "min-slaves-max-lag", 0, 0, intMax, 10, 0),
	numParam("watchdog-period", "", hidden, 0, intMax, 0, 0),
	numParam("shutdown-timeout", "", 0, 0, intMax, 10, 0),
	numParam("repl-diskless-sync-max-replicas", "", 0, 0, intMax, 0, 0),
	numParam("tls-port", "", 0, 0, 65535, 0, 0),
	numParam("tls-session-cache-size", "", 0, 0, intMax, 20*1024, 0),
	numParam("tls-session-cache-timeout", "", 0, 0, intMax, 300, 0),

	numParam("maxclients", "", 0, 1, uintMax, 10000, numUnsigned),
	numParam("unixsocketperm", "", immutable, 0, 0o777, 0, numUnsigned|numOctal),
	numParam("socket-mark-id", "", immutable, 0, uintMax, 0, numUnsigned),

	numParam("active-defrag-max-scan-fields", "", 0, 1, longMax, 1000, 0),
	numParam("slowlog-max-len", "", 0, 0, longMax, 128, 0),
	numParam("acllog-max-len", "", 0, 0, longMax, 128, 0),

	numParam("busy-reply-threshold", "lua-time-limit", 0, 0, longMax, 5000, 0),
	numParam("cluster-node-timeout", "", 0, 0, longMax, 15000, 0),
	numParam("slowlog-log-slower-than", "", 0, -1, longMax, 10000, 0),
	numParam("latency-monitor-threshold", "", 0, 0, longMax, 0, 0),
	numParam("proto-max-bulk-len", "", 0, 1<<20, longMax, 512<<20, numMemory),
	numParam("stream-node-max-entries", "", 0, 0, longMax, 100, 0),
	numParam("repl-backlog-size", "", 0, 1, longMax, 1<<20, numMemory),

	numParam("maxmemory", "", 0, 0, ullMax, 0, numMemory|numUnsigned),
	numParam("cluster-link-sendbuf-limit", "", 0, 0, ullMax, 0, numMemory|numUnsigned),

	numParam("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, 0, longMax, 512, numUnsigned),
	numParam("set-max-intset-entries", "", 0, 0, longMax, 512, numUnsigned),
	numParam("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, 0, longMax, 128, numUnsigned),
	numParam("active-defrag-ignore-bytes", "", 0, 1, longMax, 100<<20, numMemory|numUnsigned),
	numParam("hash-max-listpack-value", "hash-max-ziplist-value", 0, 0, longMax, 64, numMemory|numUnsigned),
	numParam("stream-node-max-bytes", "", 0, 0, longMax, 4096, numMemory|numUnsigned),
	numParam("zset-max-listpack-value", "zset-max-ziplist-value", 0, 0, longMax, 64, numMemory|numUnsigned),
	numParam("hll-sparse-max-bytes", "", 0, 0, longMax, 3000, numMemory|numUnsigned),
	numParam("tracking-table-max-keys", "", 0, 0, longMax, 1000000, numUnsigned),
	numParam("client-query-buffer-limit", "", 0, 1<<20, longMax, 1<<30, numMemory|numUnsigned),
	numParam("maxmemory-clients", "", 0, -100, longMax, 0, numMemory|numPercent),

	numParam("repl-backlog-ttl", "", 0, 0, longMax, 3600, 0),
	numParam("auto-aof-rewrite-min-size", "", 0, 0, longMax, 64<<20, numMemory),
	numParam("loading-process-events-interval-bytes", "", hidden, 1024, intMax, 2<<20, 0),

	{name: "dir", kind: kindSpecial, flags: protected},
	specialParam("save", "", 0, "3600 1 300 100 60 10000", parseSave),
	specialParam("client-output-buffer-limit", "", 0, "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", parseOutputBufferLimit),
	specialParam("oom-score-adj-values", "", 0, "0 200 800", parseOOMScoreAdjValues),
	{name: "notify-keyspace-events", kind: kindSpecial, parse: parseNotifyParam},

	// mayfly's own: the expiry log (kv's expiry_log.go), off by default.
	stringParam("expired-events-stream", "", 0, ""),
	numParam("expired-events-maxlen", "", 0, 0, longMax, 100000, 0),
	// mayfly's own: whether plain connections are served by event loops
	// (Options.EventLoop), set at startup only.
	boolParam("resp-event-loop", "", immutable, false),
	specialParam("bind", "", 0, "* -::*", parseBind),
	specialParam("replicaof", "slaveof", immutable, "", nil),
	specialParam("latency-tracking-info-percentiles", "", 0, "50 99 99.9", parsePercentiles),
}
