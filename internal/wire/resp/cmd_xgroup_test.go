package resp_test

import (
	"testing"
	"time"
)

func TestXGroupSubcommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.", "xgroup", "create", "s", "g", "$"),
		ok("xgroup", "create", "s", "g", "$", "mkstream"),
		reply(int64(0), "xlen", "s"),
		fails("BUSYGROUP Consumer Group name already exists", "xgroup", "create", "s", "g", "0"),
		fails("ERR Invalid stream ID specified as stream command argument", "xgroup", "create", "s", "g2", "x"),
		fails("ERR value for ENTRIESREAD must be positive or -1", "xgroup", "create", "s", "g2", "0", "entriesread", "-2"),
		fails("ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.", "xgroup", "create", "s", "g2", "0", "foo"),
		fails("NOGROUP No such consumer group 'nog' for key name 's'", "xgroup", "setid", "s", "nog", "0"),
		fails("NOGROUP No such consumer group 'nog' for key name 's'", "xgroup", "createconsumer", "s", "nog", "c"),
		fails("NOGROUP No such consumer group 'nog' for key name 's'", "xgroup", "delconsumer", "s", "nog", "c"),
		fails("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.", "xgroup", "destroy", "nokey", "g"),
		reply(int64(1), "xgroup", "createconsumer", "s", "g", "c1"),
		reply(int64(0), "xgroup", "createconsumer", "s", "g", "c1"),
		reply(int64(0), "xgroup", "delconsumer", "s", "g", "c1"),
		reply(int64(0), "xgroup", "delconsumer", "s", "g", "c1"),
		ok("xgroup", "setid", "s", "g", "5-0", "entriesread", "3"),
		fails("ERR wrong number of arguments for 'xgroup|destroy' command", "xgroup", "destroy", "s"),
		fails("ERR unknown subcommand 'foo'. Try XGROUP HELP.", "xgroup", "foo"),
		reply(int64(1), "xgroup", "destroy", "s", "g"),
		reply(int64(0), "xgroup", "destroy", "s", "g"),
		ok("set", "str", "v"),
		fails(wrongType, "xgroup", "create", "str", "g", "$", "mkstream"),
	})
	help, err := c.Do(t.Context(), "xgroup", "help").Slice()
	if err != nil || len(help) < 5 || help[0] != "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" {
		t.Fatalf("XGROUP HELP: %v %v", help, err)
	}
}

// entry is one XRANGE-style entry of a reply.
func entry(id string, fv ...any) []any { return []any{id, fv} }

func TestXReadGroupAckPending(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "a", "1"),
		reply("2-0", "xadd", "s", "2-0", "b", "2"),
		reply("3-0", "xadd", "s", "3-0", "c", "3"),
		ok("xgroup", "create", "s", "g", "0"),
		fails("NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option", "xreadgroup", "group", "nog", "c", "streams", "s", ">"),
		fails("NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option", "xreadgroup", "group", "g", "c", "streams", "nokey", ">"),
		fails("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.", "xreadgroup", "group", "g", "c", "streams", "s", "$"),
		fails("ERR Missing GROUP option for XREADGROUP", "xreadgroup", "count", "1", "noack", "streams", "s", ">"),
		fails("ERR Unbalanced XREADGROUP list of streams: for each stream key an ID or '$' must be specified.", "xreadgroup", "group", "g", "c", "streams", "s", ">", "x"),
		reply([]any{[]any{"s", []any{entry("1-0", "a", "1"), entry("2-0", "b", "2")}}},
			"xreadgroup", "group", "g", "alice", "count", "2", "streams", "s", ">"),
		reply([]any{[]any{"s", []any{entry("3-0", "c", "3")}}},
			"xreadgroup", "group", "g", "bob", "streams", "s", ">"),
		reply(nil, "xreadgroup", "group", "g", "bob", "streams", "s", ">"),
		// History: the consumer's own pending entries, a deleted one
		// with null fields.
		reply(int64(1), "xdel", "s", "2-0"),
		reply([]any{[]any{"s", []any{entry("1-0", "a", "1"), []any{"2-0", nil}}}},
			"xreadgroup", "group", "g", "alice", "streams", "s", "0"),
		reply([]any{[]any{"s", []any{}}}, "xreadgroup", "group", "g", "carol", "streams", "s", "0"),
		reply([]any{int64(3), "1-0", "3-0", []any{[]any{"alice", "2"}, []any{"bob", "1"}}}, "xpending", "s", "g"),
		reply([]any{[]any{"1-0", "alice", int64(0), int64(2)}}, "xpending", "s", "g", "-", "+", "1"),
		reply([]any{[]any{"3-0", "bob", int64(0), int64(1)}}, "xpending", "s", "g", "-", "+", "10", "bob"),
		reply([]any{}, "xpending", "s", "g", "-", "+", "10", "nobody"),
	})
	e.clock.Advance(50 * time.Millisecond)
	runSteps(t, e, c, []step{
		reply([]any{[]any{"1-0", "alice", int64(50), int64(2)}, []any{"2-0", "alice", int64(50), int64(1)}},
			"xpending", "s", "g", "idle", "40", "(0", "(3-0", "10"),
		reply([]any{}, "xpending", "s", "g", "idle", "60", "-", "+", "10"),
		fails("NOGROUP No such key 's' or consumer group 'nog'", "xpending", "s", "nog"),
		fails("ERR syntax error", "xpending", "s", "g", "-", "+"),
		fails("ERR syntax error", "xpending", "s", "g", "idle", "10", "-", "+"),
		reply(int64(2), "xack", "s", "g", "1-0", "3-0", "9-9"),
		reply(int64(0), "xack", "s", "nog", "bad"),
		fails("ERR Invalid stream ID specified as stream command argument", "xack", "s", "g", "bad"),
		reply([]any{int64(1), "2-0", "2-0", []any{[]any{"alice", "1"}}}, "xpending", "s", "g"),
		reply(int64(1), "xgroup", "delconsumer", "s", "g", "alice"),
		reply([]any{int64(0), nil, nil, nil}, "xpending", "s", "g"),
		// NOACK delivers without a pending entry.
		reply("4-0", "xadd", "s", "4-0", "d", "4"),
		reply([]any{[]any{"s", []any{entry("4-0", "d", "4")}}}, "xreadgroup", "group", "g", "bob", "noack", "streams", "s", ">"),
	})
	groups := c.XInfoGroups(t.Context(), "s").Val()
	if len(groups) != 1 || groups[0].Pending != 0 || groups[0].LastDeliveredID != "4-0" || groups[0].Consumers != 2 {
		t.Fatalf("XINFO GROUPS: %+v", groups)
	}
}

func TestXClaimAndAutoClaim(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	steps := []step{}
	for _, id := range []string{"1-0", "2-0", "3-0", "4-0"} {
		steps = append(steps, reply(id, "xadd", "s", id, "f", id))
	}
	runSteps(t, e, c, append(steps,
		ok("xgroup", "create", "s", "g", "0"),
		reply([]any{[]any{"s", []any{entry("1-0", "f", "1-0"), entry("2-0", "f", "2-0"), entry("3-0", "f", "3-0")}}},
			"xreadgroup", "group", "g", "alice", "count", "3", "streams", "s", ">"),
	))
	e.clock.Advance(100 * time.Millisecond)
	runSteps(t, e, c, []step{
		fails("NOGROUP No such key 's' or consumer group 'nog'", "xclaim", "s", "nog", "bob", "0", "1-0"),
		fails("ERR Invalid min-idle-time argument for XCLAIM", "xclaim", "s", "g", "bob", "x", "1-0"),
		fails("ERR Unrecognized XCLAIM option 'foo'", "xclaim", "s", "g", "bob", "0", "1-0", "foo"),
		fails("ERR Invalid IDLE option argument for XCLAIM", "xclaim", "s", "g", "bob", "0", "1-0", "idle", "x"),
		// Too recent for 200 ms; claimed at 50.
		reply([]any{}, "xclaim", "s", "g", "bob", "200", "1-0"),
		reply([]any{entry("1-0", "f", "1-0")}, "xclaim", "s", "g", "bob", "50", "1-0"),
		reply([]any{[]any{"1-0", "bob", int64(0), int64(2)}}, "xpending", "s", "g", "-", "+", "1"),
		// JUSTID does not count a delivery; RETRYCOUNT and IDLE set them.
		reply([]any{"2-0"}, "xclaim", "s", "g", "bob", "0", "2-0", "justid", "retrycount", "7", "idle", "500"),
		reply([]any{[]any{"2-0", "bob", int64(500), int64(7)}}, "xpending", "s", "g", "2-0", "2-0", "1"),
		// FORCE creates the pending entry of a delivered-to-nobody entry.
		reply([]any{}, "xclaim", "s", "g", "bob", "0", "4-0"),
		reply([]any{"4-0"}, "xclaim", "s", "g", "carol", "0", "4-0", "force", "justid", "lastid", "4-0"),
		reply([]any{int64(4), "1-0", "4-0", []any{[]any{"alice", "1"}, []any{"bob", "2"}, []any{"carol", "1"}}}, "xpending", "s", "g"),
		// A deleted entry is dropped from the pending list by XCLAIM.
		reply(int64(1), "xdel", "s", "3-0"),
		reply([]any{}, "xclaim", "s", "g", "bob", "0", "3-0"),
		reply([]any{int64(3), "1-0", "4-0", []any{[]any{"bob", "2"}, []any{"carol", "1"}}}, "xpending", "s", "g"),
	})
	e.clock.Advance(1000 * time.Millisecond)
	runSteps(t, e, c, []step{
		fails("ERR Invalid min-idle-time argument for XAUTOCLAIM", "xautoclaim", "s", "g", "dave", "x", "0"),
		fails("ERR COUNT must be > 0", "xautoclaim", "s", "g", "dave", "0", "0", "count", "0"),
		fails("ERR syntax error", "xautoclaim", "s", "g", "dave", "0", "0", "foo"),
		fails("NOGROUP No such key 's' or consumer group 'nog'", "xautoclaim", "s", "nog", "dave", "0", "0"),
		reply([]any{"2-0", []any{entry("1-0", "f", "1-0")}, []any{}}, "xautoclaim", "s", "g", "dave", "100", "0", "count", "1"),
		reply(int64(1), "xdel", "s", "2-0"),
		reply([]any{"0-0", []any{"4-0"}, []any{"2-0"}}, "xautoclaim", "s", "g", "dave", "100", "(1-0", "justid"),
		reply([]any{int64(2), "1-0", "4-0", []any{[]any{"dave", "2"}}}, "xpending", "s", "g"),
	})
}

func TestXInfo(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR no such key", "xinfo", "stream", "s"),
		reply("1-0", "xadd", "s", "1-0", "a", "1"),
		reply("2-0", "xadd", "s", "2-0", "b", "2"),
		ok("xgroup", "create", "s", "g", "0"),
		reply([]any{[]any{"s", []any{entry("1-0", "a", "1")}}}, "xreadgroup", "group", "g", "c", "count", "1", "streams", "s", ">"),
		reply([]any{
			"length", int64(2), "radix-tree-keys", int64(1), "radix-tree-nodes", int64(2),
			"last-generated-id", "2-0", "max-deleted-entry-id", "0-0", "entries-added", int64(2),
			"recorded-first-entry-id", "1-0", "groups", int64(1),
			"first-entry", entry("1-0", "a", "1"), "last-entry", entry("2-0", "b", "2"),
		}, "xinfo", "stream", "s"),
		reply([]any{[]any{
			"name", "g", "consumers", int64(1), "pending", int64(1), "last-delivered-id", "1-0",
			"entries-read", int64(1), "lag", int64(1),
		}}, "xinfo", "groups", "s"),
		reply([]any{[]any{"name", "c", "pending", int64(1), "idle", int64(0)}}, "xinfo", "consumers", "s", "g"),
		fails("NOGROUP No such consumer group 'nog' for key name 's'", "xinfo", "consumers", "s", "nog"),
		fails("ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.", "xinfo", "stream", "s", "foo"),
		reply([]any{
			"length", int64(2), "radix-tree-keys", int64(1), "radix-tree-nodes", int64(2),
			"last-generated-id", "2-0", "max-deleted-entry-id", "0-0", "entries-added", int64(2),
			"recorded-first-entry-id", "1-0",
			"entries", []any{entry("1-0", "a", "1")},
			"groups", []any{[]any{
				"name", "g", "last-delivered-id", "1-0", "entries-read", int64(1), "lag", int64(1),
				"pel-count", int64(1), "pending", []any{[]any{"1-0", "c", int64(start0), int64(1)}},
				"consumers", []any{[]any{
					"name", "c", "seen-time", int64(start0), "pel-count", int64(1),
					"pending", []any{[]any{"1-0", int64(start0), int64(1)}},
				}},
			}},
		}, "xinfo", "stream", "s", "full", "count", "1"),
		// A deletion ahead of a group makes its lag unknown.
		reply(int64(1), "xdel", "s", "2-0"),
		reply("3-0", "xadd", "s", "3-0", "c", "3"),
	})
	groups, err := c.Do(t.Context(), "xinfo", "groups", "s").Slice()
	if err != nil || len(groups) != 1 {
		t.Fatal(groups, err)
	}
	g := groups[0].([]any)
	if g[9] != int64(1) || g[11] != nil {
		t.Fatalf("entries-read and lag after a deletion ahead: %v", g)
	}
}

// As in Redis, a consumer group's reads and acknowledgements are no
// change of the stream for WATCH; an XADD is.
func TestStreamGroupOpsAndWatch(t *testing.T) {
	e := newEnv(t)
	c, other := e.client(2), e.client(2)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "f", "1"),
		ok("xgroup", "create", "s", "g", "0"),
		ok("watch", "s"),
	})
	runSteps(t, e, other, []step{
		reply([]any{[]any{"s", []any{entry("1-0", "f", "1")}}}, "xreadgroup", "group", "g", "c", "streams", "s", ">"),
		reply(int64(1), "xack", "s", "g", "1-0"),
	})
	runSteps(t, e, c, []step{ok("multi"), reply("QUEUED", "xlen", "s"), reply([]any{int64(1)}, "exec"), ok("watch", "s")})
	runSteps(t, e, other, []step{reply("2-0", "xadd", "s", "2-0", "f", "2")})
	runSteps(t, e, c, []step{ok("multi"), reply("QUEUED", "xlen", "s"), reply(nil, "exec")})
}
