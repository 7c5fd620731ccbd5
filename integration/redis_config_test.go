package integration_test

import (
	"net"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

func configSetFailed(name, msg string) string {
	return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + msg
}

// Ensure that CONFIG SET refuses what Redis 7.0 refuses, with its exact
// words: wrong types, values out of range, unknown enum names, immutable
// and protected parameters, unknown names, repeated parameters, and that a
// refused CONFIG SET of several parameters changes none of them.
func TestRedisConfigSetErrors(t *testing.T) {
	s := harness.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	ctx := t.Context()
	cases := []struct {
		args []any
		want string
	}{
		{[]any{"maxmemory", "1.5mb"}, configSetFailed("maxmemory", "argument must be a memory value")},
		{[]any{"maxmemory", "-1"}, configSetFailed("maxmemory", "argument must be a memory value")},
		{[]any{"hash-max-ziplist-entries", "-1"}, configSetFailed("hash-max-ziplist-entries", "argument must be between 0 and 9223372036854775807 inclusive")},
		{[]any{"hash-max-listpack-entries", "01"}, configSetFailed("hash-max-listpack-entries", "argument couldn't be parsed into an integer")},
		{[]any{"hash-max-listpack-entries", "+1"}, configSetFailed("hash-max-listpack-entries", "argument couldn't be parsed into an integer")},
		{[]any{"list-max-ziplist-size", "-2147483649"}, configSetFailed("list-max-ziplist-size", "argument must be between -2147483648 and 2147483647 inclusive")},
		{[]any{"maxclients", "0"}, configSetFailed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		{[]any{"maxclients", "-1"}, configSetFailed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		{[]any{"slowlog-log-slower-than", "-2"}, configSetFailed("slowlog-log-slower-than", "argument must be between -1 and 9223372036854775807 inclusive")},
		{[]any{"slowlog-max-len", "-1"}, configSetFailed("slowlog-max-len", "argument must be between 0 and 9223372036854775807 inclusive")},
		{[]any{"hz", "-1"}, configSetFailed("hz", "argument must be between 0 and 2147483647 inclusive")},
		{[]any{"tls-port", "70000"}, configSetFailed("tls-port", "argument must be between 0 and 65535 inclusive")},
		{[]any{"loglevel", "foo"}, configSetFailed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning")},
		{[]any{"shutdown-on-sigterm", "force  now"}, configSetFailed("shutdown-on-sigterm", "argument(s) must be one of the following: default, save, nosave, now, force")},
		{[]any{"shutdown-on-sigint", "save nosave"}, configSetFailed("shutdown-on-sigint", "shutdown options SAVE and NOSAVE can't be used simultaneously")},
		{[]any{"appendonly", "maybe"}, configSetFailed("appendonly", "argument must be 'yes' or 'no'")},
		{[]any{"save", "100"}, configSetFailed("save", "Invalid save parameters")},
		{[]any{"save", "0 1"}, configSetFailed("save", "Invalid save parameters")},
		{[]any{"save", "1 -1"}, configSetFailed("save", "Invalid save parameters")},
		{[]any{"save", " 1 1"}, configSetFailed("save", "Invalid save parameters")},
		{[]any{"save", "1 1x"}, configSetFailed("save", "Invalid save parameters")},
		{[]any{"client-output-buffer-limit", "normal 1 2"}, configSetFailed("client-output-buffer-limit", "Wrong number of arguments in buffer limit configuration.")},
		{[]any{"client-output-buffer-limit", "master 1 2 3"}, configSetFailed("client-output-buffer-limit", "Invalid client class specified in buffer limit configuration.")},
		{[]any{"client-output-buffer-limit", "pubsub 1 x 3"}, configSetFailed("client-output-buffer-limit", "Error in hard, soft or soft_seconds setting in buffer limit configuration.")},
		{[]any{"oom-score-adj-values", "1 2"}, configSetFailed("oom-score-adj-values", "wrong number of arguments")},
		{[]any{"oom-score-adj-values", "1 2 3000"}, configSetFailed("oom-score-adj-values", "Invalid oom-score-adj-values, elements must be between -2000 and 2000.")},
		{[]any{"latency-tracking-info-percentiles", "50 101"}, configSetFailed("latency-tracking-info-percentiles", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")},
		{[]any{"latency-tracking-info-percentiles", "abc"}, configSetFailed("latency-tracking-info-percentiles", "Invalid latency-tracking-info-percentiles parameters")},
		{[]any{"bind", "a b c d e f g h i j k l m n o p q"}, configSetFailed("bind", "Too many bind addresses specified.")},
		{[]any{"proc-title-template", "{title}"}, configSetFailed("proc-title-template", "template format is invalid or contains unknown variables")},
		{[]any{"proc-title-template", "{foo}"}, configSetFailed("proc-title-template", "template format is invalid or contains unknown variables")},
		{[]any{"cluster-announce-hostname", "a_b"}, configSetFailed("cluster-announce-hostname", "Hostnames may only contain alphanumeric characters, hyphens or dots")},
		{[]any{"maxmemory-clients", "101%"}, configSetFailed("maxmemory-clients", "percentage argument must be less or equal to 100")},
		{[]any{"maxmemory-clients", "-5"}, configSetFailed("maxmemory-clients", "argument must be a memory or percent value")},
		{[]any{"dir", "/tmp"}, configSetFailed("dir", "can't set protected config")},
		{[]any{"dbfilename", "x"}, configSetFailed("dbfilename", "can't set protected config")},
		{[]any{"daemonize", "yes"}, configSetFailed("daemonize", "can't set immutable config")},
		{[]any{"appendfilename", "x"}, configSetFailed("appendfilename", "can't set immutable config")},
		{[]any{"slaveof", "no one"}, configSetFailed("slaveof", "can't set immutable config")},
		{[]any{"unixsocketperm", "777"}, configSetFailed("unixsocketperm", "can't set immutable config")},
		{[]any{"Foo", "1"}, "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'"},
		// The names are all checked before any value: an unknown name
		// wins over a bad value before it, the first bad name over later ones.
		{[]any{"hz", "x", "Foo", "1"}, "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'"},
		{[]any{"daemonize", "yes", "Foo", "1"}, configSetFailed("daemonize", "can't set immutable config")},
		{[]any{"hz", "5", "HZ", "6"}, configSetFailed("HZ", "duplicate parameter")},
		// A bad value names the parameter as the table spells it.
		{[]any{"HZ", "x"}, configSetFailed("hz", "argument couldn't be parsed into an integer")},
		{[]any{"hz", "1", "maxclients", "0"}, configSetFailed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		// The listener stays where it was started.
		{[]any{"port", "1"}, configSetFailed("port", "Unable to listen on this port. Check server logs.")},
		{[]any{"bind", "10.0.0.1"}, configSetFailed("bind", "Failed to bind to specified addresses.")},
		{[]any{"maxmemory", "5", "port", "1"}, configSetFailed("port", "Unable to listen on this port. Check server logs.")},
		{[]any{"hz"}, "ERR wrong number of arguments for 'config|set' command"},
		{[]any{"hz", "1", "hz"}, "ERR syntax error"},
	}
	for _, c := range cases {
		err := rc.Do(ctx, append([]any{"config", "set"}, c.args...)...).Err()
		if err == nil || err.Error() != c.want {
			t.Errorf("CONFIG SET %q: %v\nwant %s", c.args, err, c.want)
		}
	}
	// Nothing of the refused CONFIG SETs took effect.
	got, err := rc.ConfigGet(ctx, "hz").Result()
	if err != nil || got["hz"] != "10" {
		t.Fatalf("hz after refused sets: %v %v", got, err)
	}
	if got, err := rc.ConfigGet(ctx, "maxclients").Result(); err != nil || got["maxclients"] != "10000" {
		t.Fatalf("maxclients after refused sets: %v %v", got, err)
	}
	if got, err := rc.ConfigGet(ctx, "maxmemory").Result(); err != nil || got["maxmemory"] != "0" {
		t.Fatalf("maxmemory after refused sets: %v %v", got, err)
	}
	// port and bind may be set to what they are.
	host, port, _ := net.SplitHostPort(s.RespAddr)
	if err := rc.ConfigSet(ctx, "port", port).Err(); err != nil {
		t.Fatalf("CONFIG SET port to itself: %v", err)
	}
	if err := rc.ConfigSet(ctx, "bind", host).Err(); err != nil {
		t.Fatalf("CONFIG SET bind to itself: %v", err)
	}
}

// Ensure that what CONFIG SET accepts, CONFIG GET shows in Redis's
// canonical form: memory units in bytes, enum names in lower case, a
// name and its alias sharing one value, Redis's clamping of hz.
func TestRedisConfigRoundTrip(t *testing.T) {
	s := harness.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	ctx := t.Context()
	cases := []struct {
		name, set string
		get       map[string]string
	}{
		{"maxmemory", "10GB", map[string]string{"maxmemory": "10737418240"}},
		{"maxmemory", "", map[string]string{"maxmemory": "0"}},
		{"maxmemory", "99999999999999999999kb", map[string]string{"maxmemory": "18446744073709550592"}},
		{"hash-max-ziplist-value", "1k", map[string]string{"hash-max-listpack-value": "1000", "hash-max-ziplist-value": "1000"}},
		{"list-max-ziplist-size", "-5", map[string]string{"list-max-listpack-size": "-5", "list-max-ziplist-size": "-5"}},
		{"list-max-listpack-size", "128", map[string]string{"list-max-ziplist-size": "128"}},
		{"zset-max-ziplist-entries", "0", map[string]string{"zset-max-listpack-entries": "0"}},
		{"set-max-intset-entries", "1", map[string]string{"set-max-intset-entries": "1"}},
		{"list-compress-depth", "2", map[string]string{"list-compress-depth": "2"}},
		{"stream-node-max-bytes", "1kb", map[string]string{"stream-node-max-bytes": "1024"}},
		{"latency-monitor-threshold", "200", map[string]string{"latency-monitor-threshold": "200"}},
		{"lua-time-limit", "200", map[string]string{"busy-reply-threshold": "200", "lua-time-limit": "200"}},
		{"loglevel", "WARNING", map[string]string{"loglevel": "warning"}},
		{"maxmemory-policy", "allkeys-LRU", map[string]string{"maxmemory-policy": "allkeys-lru"}},
		{"appendonly", "YES", map[string]string{"appendonly": "yes"}},
		{"oom-score-adj", "relative", map[string]string{"oom-score-adj": "yes"}},
		{"shutdown-on-sigterm", "force now", map[string]string{"shutdown-on-sigterm": "now force"}},
		{"save", "10 ", map[string]string{"save": "10 0"}},
		{"save", "3600 1 300 100", map[string]string{"save": "3600 1 300 100"}},
		{"save", "", map[string]string{"save": ""}},
		{"client-output-buffer-limit", "replica 1mb 2kb 3", map[string]string{
			"client-output-buffer-limit": "normal 0 0 0 slave 1048576 2048 3 pubsub 33554432 8388608 60"}},
		{"latency-tracking-info-percentiles", "1.5 0 99.99999", map[string]string{"latency-tracking-info-percentiles": "1.5 0 99.99999"}},
		{"maxmemory-clients", "10%", map[string]string{"maxmemory-clients": "10%"}},
		{"maxmemory-clients", "5mb", map[string]string{"maxmemory-clients": "5242880"}},
		{"proc-title-template", "{{ {port}", map[string]string{"proc-title-template": "{{ {port}"}},
		{"hz", "1000", map[string]string{"hz": "500"}},
		{"hz", "0", map[string]string{"hz": "1"}},
		{"use-exit-on-panic", "yes", map[string]string{"use-exit-on-panic": "yes"}},
	}
	for _, c := range cases {
		if err := rc.ConfigSet(ctx, c.name, c.set).Err(); err != nil {
			t.Errorf("CONFIG SET %s %q: %v", c.name, c.set, err)
			continue
		}
		for name, want := range c.get {
			got, err := rc.ConfigGet(ctx, name).Result()
			if err != nil || len(got) != 1 || got[name] != want {
				t.Errorf("after CONFIG SET %s %q: CONFIG GET %s = %v %v, want %q", c.name, c.set, name, got, err, want)
			}
		}
	}

	// Several pairs at once take effect together.
	if err := rc.Do(ctx, "config", "set", "hz", "20", "maxmemory", "1mb", "list-max-ziplist-size", "-1").Err(); err != nil {
		t.Fatal(err)
	}
	got, err := rc.ConfigGet(ctx, "hz").Result()
	if err != nil || got["hz"] != "20" {
		t.Fatalf("hz: %v %v", got, err)
	}
	// A pattern matches names and aliases in any case; several arguments
	// answer once per name; hidden parameters answer only by exact name.
	pats, err := rc.Do(ctx, "config", "get", "HASH-MAX-*", "hash-max-listpack-entries", "*exit-on*").Result()
	want := map[any]any{
		"hash-max-listpack-entries": "512", "hash-max-listpack-value": "1000",
		"hash-max-ziplist-entries": "512", "hash-max-ziplist-value": "1000",
	}
	if pl, ok := pats.([]any); ok && err == nil {
		// RESP2: a flat list of names and values.
		m := map[any]any{}
		for i := 0; i+1 < len(pl); i += 2 {
			m[pl[i]] = pl[i+1]
		}
		pats = m
	}
	if err != nil || !reflect.DeepEqual(pats, want) {
		t.Fatalf("CONFIG GET patterns: %#v %v", pats, err)
	}
	all, err := rc.ConfigGet(ctx, "*").Result()
	// Redis 7.0's 192, mayfly's own two of the durable expiry events and
	// resp-event-loop.
	loop := "no"
	if os.Getenv(harness.EventLoopEnv) == "1" {
		loop = "yes"
	}
	if err != nil || len(all) != 192+3 || all["expired-events-stream"] != "" || all["expired-events-maxlen"] != "100000" || all["resp-event-loop"] != loop {
		t.Fatalf("CONFIG GET * has %d parameters (%v), want Redis 7.0's 192 and expired-events-stream, expired-events-maxlen, resp-event-loop %s", len(all), err, loop)
	}
	_, port, _ := net.SplitHostPort(s.RespAddr)
	if all["port"] != port || all["maxmemory"] != "1048576" || all["list-max-listpack-size"] != "-1" {
		t.Fatalf("CONFIG GET *: port %q maxmemory %q list-max-listpack-size %q", all["port"], all["maxmemory"], all["list-max-listpack-size"])
	}
}

// Ensure that the parameters mayfly acts on still act when set among
// Redis's other parameters, and CONFIG REWRITE and RESETSTAT answer as
// Redis started without a config file does, through redis-cli.
func TestRedisConfigCLI(t *testing.T) {
	cli := harness.Tool(t, "redis-cli")
	s := harness.Start(t)
	host, port, err := net.SplitHostPort(s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
		}
		return strings.TrimRight(string(out), "\n")
	}
	if got := run("config", "rewrite"); got != "ERR The server is running without a config file" {
		t.Fatalf("CONFIG REWRITE: %q", got)
	}
	if got := run("config", "resetstat"); got != "OK" {
		t.Fatalf("CONFIG RESETSTAT: %q", got)
	}
	if got := run("config", "set", "list-max-ziplist-size", "4", "proto-max-bulk-len", "1mb", "requirepass", "secret"); got != "OK" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	if got := run("ping"); !strings.HasPrefix(got, "NOAUTH") {
		t.Fatalf("PING after requirepass: %q", got)
	}
	if got := run("-a", "secret", "--no-auth-warning", "setrange", "k", "1048576", "x"); got != "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {
		t.Fatalf("SETRANGE past proto-max-bulk-len: %q", got)
	}
	if got := run("-a", "secret", "--no-auth-warning", "config", "get", "list-max-listpack-size"); got != "list-max-listpack-size\n4" {
		t.Fatalf("CONFIG GET: %q", got)
	}
}
