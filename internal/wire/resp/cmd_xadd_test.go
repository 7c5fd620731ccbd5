package resp_test

import (
	"strconv"
	"testing"
	"time"
)

func TestXAddAndRanges(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("1700000000000-0", "xadd", "s", "*", "a", "1"),
		reply("1700000000000-1", "xadd", "s", "*", "b", "2"),
		reply("1700000000005-0", "xadd", "s", "1700000000005-*", "c", "3"),
		reply("1700000000005-1", "xadd", "s", "1700000000005-*", "d", "4"),
		reply("1700000000009-7", "xadd", "s", "1700000000009-7", "e", "5"),
		fails("ERR The ID specified in XADD is equal or smaller than the target stream top item", "xadd", "s", "1700000000009-7", "x", "y"),
		fails("ERR The ID specified in XADD is equal or smaller than the target stream top item", "xadd", "s", "5", "x", "y"),
		fails("ERR The ID specified in XADD must be greater than 0-0", "xadd", "new", "0-0", "x", "y"),
		reply(int64(0), "exists", "new"),
		reply("0-1", "xadd", "new", "0-*", "x", "y"),
		fails("ERR Invalid stream ID specified as stream command argument", "xadd", "s", "abc", "x", "y"),
		fails("ERR Invalid stream ID specified as stream command argument", "xadd", "s", "-", "x", "y"),
		fails("ERR Invalid stream ID specified as stream command argument", "xadd", "s", "1-x", "x", "y"),
		fails("ERR wrong number of arguments for 'xadd' command", "xadd", "s", "*", "a"),
		fails("ERR wrong number of arguments for 'xadd' command", "xadd", "s", "*", "a", "1", "b"),
		reply(nil, "xadd", "nokey", "nomkstream", "*", "a", "1"),
		reply(int64(0), "exists", "nokey"),
		reply(int64(5), "xlen", "s"),
		reply(int64(0), "xlen", "nokey"),
		reply("stream", "type", "s"),
		reply([]any{
			[]any{"1700000000000-0", []any{"a", "1"}},
			[]any{"1700000000000-1", []any{"b", "2"}},
		}, "xrange", "s", "-", "+", "count", "2"),
		reply([]any{
			[]any{"1700000000000-1", []any{"b", "2"}},
			[]any{"1700000000005-0", []any{"c", "3"}},
			[]any{"1700000000005-1", []any{"d", "4"}},
		}, "xrange", "s", "(1700000000000-0", "1700000000005"),
		reply([]any{
			[]any{"1700000000009-7", []any{"e", "5"}},
			[]any{"1700000000005-1", []any{"d", "4"}},
		}, "xrevrange", "s", "+", "(1700000000005-0"),
		reply([]any{[]any{"1700000000009-7", []any{"e", "5"}}}, "xrevrange", "s", "+", "-", "count", "1"),
		reply(nil, "xrange", "s", "-", "+", "count", "0"),
		reply([]any{}, "xrange", "nokey", "-", "+", "count", "0"),
		reply([]any{}, "xrange", "s", "9999999999999", "+"),
		fails("ERR invalid start ID for the interval", "xrange", "s", "(18446744073709551615-18446744073709551615", "+"),
		fails("ERR invalid end ID for the interval", "xrange", "s", "-", "(0-0"),
		fails("ERR Invalid stream ID specified as stream command argument", "xrange", "s", "(-", "+"),
		fails("ERR syntax error", "xrange", "s", "-", "+", "limit", "1"),
		fails("ERR value is not an integer or out of range", "xrange", "s", "-", "+", "count", "x"),
		reply(int64(2), "xdel", "s", "1700000000000-0", "1700000000005-0", "1-1"),
		reply(int64(0), "xdel", "nokey", "bad-id"),
		fails("ERR Invalid stream ID specified as stream command argument", "xdel", "s", "bad"),
		reply(int64(3), "xlen", "s"),
		ok("set", "str", "v"),
		fails(wrongType, "xadd", "str", "*", "a", "1"),
		fails(wrongType, "xlen", "str"),
		fails(wrongType, "xrange", "str", "-", "+"),
		fails(wrongType, "xdel", "str", "1-1"),
		fails(wrongType, "xtrim", "str", "maxlen", "1"),
	})
}

func TestXAddTrimming(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	var steps []step
	for i := 1; i <= 10; i++ {
		steps = append(steps, reply(strconv.Itoa(i)+"-0", "xadd", "s", strconv.Itoa(i)+"-0", "f", strconv.Itoa(i)))
	}
	runSteps(t, e, c, append(steps,
		reply("11-0", "xadd", "s", "maxlen", "8", "11-0", "f", "11"),
		reply(int64(8), "xlen", "s"),
		reply("12-0", "xadd", "s", "maxlen", "=", "5", "12-0", "f", "12"),
		reply(int64(5), "xlen", "s"),
		reply([]any{[]any{"8-0", []any{"f", "8"}}}, "xrange", "s", "-", "+", "count", "1"),
		reply("13-0", "xadd", "s", "minid", "10", "13-0", "f", "13"),
		reply(int64(4), "xlen", "s"),
		reply(int64(2), "xtrim", "s", "maxlen", "2"),
		reply(int64(1), "xtrim", "s", "minid", "13"),
		reply(int64(0), "xtrim", "s", "minid", "13"),
		reply(int64(0), "xtrim", "nokey", "maxlen", "0"),
		reply(int64(1), "xtrim", "s", "maxlen", "0"),
		reply(int64(0), "xlen", "s"),
		reply(int64(1), "exists", "s"), // an emptied stream stays
		fails("ERR syntax error, MAXLEN and MINID options at the same time are not compatible", "xadd", "s", "maxlen", "1", "minid", "1", "*", "a", "b"),
		fails("ERR The MAXLEN argument must be >= 0.", "xadd", "s", "maxlen", "-1", "*", "a", "b"),
		fails("ERR The LIMIT argument must be >= 0.", "xadd", "s", "maxlen", "~", "1", "limit", "-1", "*", "a", "b"),
		fails("ERR syntax error, LIMIT cannot be used without the special ~ option", "xadd", "s", "maxlen", "1", "limit", "10", "*", "a", "b"),
		fails("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy", "xadd", "s", "limit", "10", "*", "a", "b"),
		fails("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy", "xtrim", "s", "limit", "10"),
		fails("ERR syntax error, XTRIM must be called with a trimming strategy", "xtrim", "s", "limit", "0"),
		fails("ERR syntax error", "xtrim", "s", "maxlen", "1", "nomkstream"),
	))
}

// Approximate trimming removes whole nodes of stream-node-max-entries
// entries only, as Redis's macro nodes.
func TestXTrimApproxByNodes(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	steps := []step{ok("config", "set", "stream-node-max-entries", "10")}
	for i := 1; i <= 35; i++ {
		steps = append(steps, reply(strconv.Itoa(i)+"-0", "xadd", "s", strconv.Itoa(i)+"-0", "f", "v"))
	}
	runSteps(t, e, c, append(steps,
		reply(int64(20), "xtrim", "s", "maxlen", "~", "12"), // nodes of 10: 15 would be left below 12 if a third went
		reply(int64(15), "xlen", "s"),
		reply(int64(0), "xtrim", "s", "maxlen", "~", "14"),
		reply(int64(0), "xtrim", "s", "maxlen", "~", "0", "limit", "5"), // the next node holds 10
		reply(int64(10), "xtrim", "s", "minid", "~", "35"),
		reply(int64(5), "xlen", "s"),
		reply("36-0", "xadd", "s", "maxlen", "~", "1", "36-0", "f", "v"),
		reply(int64(6), "xlen", "s"),
	))
}

func TestXSetID(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR no such key", "xsetid", "s", "1-1"),
		reply("5-0", "xadd", "s", "5-0", "a", "1"),
		fails("ERR The ID specified in XSETID is smaller than the target stream top item", "xsetid", "s", "4-0"),
		fails("ERR The entries_added specified in XSETID is smaller than the target stream length", "xsetid", "s", "6-0", "entriesadded", "0"),
		fails("ERR entries_added must be positive", "xsetid", "s", "6-0", "entriesadded", "-1"),
		fails("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id", "xsetid", "s", "6-0", "maxdeletedid", "7-0"),
		fails("ERR syntax error", "xsetid", "s", "6-0", "foo"),
		fails("ERR Invalid stream ID specified as stream command argument", "xsetid", "s", "+"),
		ok("xsetid", "s", "10-0", "entriesadded", "7", "maxdeletedid", "3-0"),
		fails("ERR The ID specified in XADD is equal or smaller than the target stream top item", "xadd", "s", "9-0", "a", "1"),
		ok("xsetid", "s", "1700000000000-5"),
		reply("1700000000000-6", "xadd", "s", "*", "a", "1"), // the same ms as the last ID: the next sequence
	})
	info := c.XInfoStream(t.Context(), "s").Val()
	if info.LastGeneratedID != "1700000000000-6" || info.EntriesAdded != 8 || info.MaxDeletedEntryID != "3-0" || info.Length != 2 {
		t.Fatalf("XINFO STREAM after XSETID: %+v", info)
	}
}

func TestStreamKeyspaceEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "a", "1"),
		reply("2-0", "xadd", "s", "maxlen", "1", "2-0", "a", "1"),
		reply(int64(1), "xdel", "s", "2-0"),
		ok("xsetid", "s", "3-0"),
		ok("xgroup", "create", "s", "g", "$"),
		reply(int64(1), "xgroup", "createconsumer", "s", "g", "c"),
		ok("xgroup", "setid", "s", "g", "0"),
		reply(int64(0), "xgroup", "delconsumer", "s", "g", "c"),
		reply(int64(1), "xgroup", "destroy", "s", "g"),
		reply("4-0", "xadd", "s", "4-0", "a", "1"),
		reply(int64(1), "xtrim", "s", "maxlen", "0"),
	})
	got := next(12)
	want := []string{"xadd s", "xadd s", "xtrim s", "xdel s", "xsetid s", "xgroup-create s",
		"xgroup-createconsumer s", "xgroup-setid s", "xgroup-delconsumer s", "xgroup-destroy s", "xadd s", "xtrim s"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}

// A stream expires like any key, and the generic commands treat it as
// any other type.
func TestStreamAsAKey(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "a", "1"),
		ok("xgroup", "create", "s", "g", "0"),
		reply(int64(1), "copy", "s", "s2"),
		ok("rename", "s2", "s3"),
		reply([]any{[]any{"1-0", []any{"a", "1"}}}, "xrange", "s3", "-", "+"),
		reply("stream", "object", "encoding", "s3"),
		reply([]any{"0", []any{"s3"}}, "scan", "0", "type", "stream", "match", "s3"),
		reply(int64(1), "pexpire", "s", "100"),
	})
	groups := c.XInfoGroups(t.Context(), "s3").Val()
	if len(groups) != 1 || groups[0].Name != "g" {
		t.Fatalf("XINFO GROUPS of the copy: %+v", groups)
	}
	p, err := c.Dump(t.Context(), "s3").Result()
	if err != nil {
		t.Fatalf("DUMP of a stream: %v", err)
	}
	if err := c.Restore(t.Context(), "s4", 0, p).Err(); err != nil {
		t.Fatalf("RESTORE of a stream's DUMP: %v", err)
	}
	if groups := c.XInfoGroups(t.Context(), "s4").Val(); len(groups) != 1 || groups[0].Name != "g" {
		t.Fatalf("XINFO GROUPS of the restored copy: %+v", groups)
	}
	e.clock.Advance(101 * time.Millisecond)
	runSteps(t, e, c, []step{
		reply(int64(0), "exists", "s"),
		reply(int64(0), "xlen", "s"),
		reply(int64(1), "del", "s3"),
		reply("none", "type", "s3"),
	})
}
