package resp_test

import (
	"testing"
	"time"
)

// The expected replies in the bitmap and HyperLogLog tests are redis-server
// 7.0.15's to the same commands.

// Ensure that SETBIT and GETBIT address bit 0 as the first byte's most
// significant bit, grow the string with zero bytes, keep its expiry, and
// refuse what Redis refuses with its words.
func TestSetBitGetBit(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(0), "setbit", "b", "7", "1"),
		reply(int64(1), "setbit", "b", "7", "1"),
		reply(int64(0), "setbit", "b", "100", "1"),
		reply("\x01"+string(make([]byte, 11))+"\x08", "get", "b"),
		reply(int64(1), "getbit", "b", "7"),
		reply(int64(0), "getbit", "b", "6"),
		reply(int64(1), "getbit", "b", "100"),
		reply(int64(0), "getbit", "b", "100000"),
		reply(int64(0), "getbit", "missing", "5"),
		reply(int64(1), "setbit", "b", "100", "0"),
		reply(int64(13), "strlen", "b"),
		fails("ERR bit offset is not an integer or out of range", "setbit", "b", "-1", "1"),
		fails("ERR bit offset is not an integer or out of range", "setbit", "b", "4294967296", "1"),
		fails("ERR bit offset is not an integer or out of range", "setbit", "b", "abc", "1"),
		fails("ERR bit offset is not an integer or out of range", "getbit", "b", "-1"),
		fails("ERR bit offset is not an integer or out of range", "getbit", "b", "4294967296"),
		fails("ERR bit is not an integer or out of range", "setbit", "b", "1", "2"),
		fails("ERR bit is not an integer or out of range", "setbit", "b", "1", "-1"),
		fails("ERR bit is not an integer or out of range", "setbit", "b", "1", "x"),
		reply(int64(1), "rpush", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "setbit", "l", "1", "1"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "getbit", "l", "1"),
		fails("ERR wrong number of arguments for 'setbit' command", "setbit", "b", "1"),
	})
	// The bound is proto-max-bulk-len, in bytes.
	runSteps(t, e, c, []step{
		ok("config", "set", "proto-max-bulk-len", "1048576"),
		fails("ERR bit offset is not an integer or out of range", "setbit", "big", "8388608", "1"),
		reply(int64(0), "setbit", "big", "8388607", "1"),
		reply(int64(1048576), "strlen", "big"),
	})
	// In-place changes keep the expiry.
	runSteps(t, e, c, []step{
		ok("set", "ttl", "x", "ex", "100"),
		reply(int64(0), "setbit", "ttl", "100", "1"),
		reply(int64(100), "ttl", "ttl"),
	})
	e.clock.Advance(101 * time.Second)
	runSteps(t, e, c, []step{reply(int64(0), "exists", "ttl")})
}

// Ensure that BITCOUNT counts the whole string or a range of bytes or bits,
// with negative positions from the end, and checks its arguments only for
// an existing string.
func TestBitCount(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "s", "foobar"),
		reply(int64(26), "bitcount", "s"),
		reply(int64(26), "bitcount", "s", "0", "-1"),
		reply(int64(4), "bitcount", "s", "0", "0"),
		reply(int64(6), "bitcount", "s", "1", "1", "byte"),
		reply(int64(17), "bitcount", "s", "5", "30", "bit"),
		reply(int64(1), "bitcount", "s", "-3", "-1", "BIT"),
		reply(int64(0), "bitcount", "s", "1", "0"),
		reply(int64(0), "bitcount", "s", "-1", "-2", "foo"),
		reply(int64(0), "bitcount", "missing"),
		reply(int64(0), "bitcount", "missing", "0"),
		fails("ERR syntax error", "bitcount", "s", "0", "1", "foo"),
		fails("ERR syntax error", "bitcount", "s", "0"),
		fails("ERR syntax error", "bitcount", "s", "0", "1", "2", "3"),
		fails("ERR value is not an integer or out of range", "bitcount", "s", "x", "1"),
		reply(int64(1), "rpush", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitcount", "l"),
	})
}

// Ensure that BITPOS finds set and clear bits in byte and bit ranges, with
// Redis's answers for a missing key, an all-ones string with and without an
// end, and an empty range.
func TestBitPos(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "s", "foobar"),
		reply(int64(1), "bitpos", "s", "1"),
		reply(int64(0), "bitpos", "s", "0"),
		reply(int64(17), "bitpos", "s", "1", "2"),
		reply(int64(8), "bitpos", "s", "0", "1", "-1"),
		reply(int64(9), "bitpos", "s", "1", "7", "15", "bit"),
		reply(int64(7), "bitpos", "s", "0", "7", "15", "bit"),
		reply(int64(43), "bitpos", "s", "1", "-5", "-1", "bit"),
		reply(int64(-1), "bitpos", "missing", "1"),
		reply(int64(0), "bitpos", "missing", "0", "foo", "bar", "baz"),
		ok("set", "ff", "\xff\xff\xff"),
		reply(int64(24), "bitpos", "ff", "0"),
		reply(int64(-1), "bitpos", "ff", "0", "0", "-1"),
		reply(int64(-1), "bitpos", "ff", "0", "3", "5", "bit"),
		reply(int64(-1), "bitpos", "ff", "1", "100"),
		ok("set", "z", "\x00\x00\x00"),
		reply(int64(-1), "bitpos", "z", "1"),
		reply(int64(5), "bitpos", "z", "0", "5", "10", "bit"),
		fails("ERR The bit argument must be 1 or 0.", "bitpos", "s", "2"),
		fails("ERR value is not an integer or out of range", "bitpos", "s", "x"),
		fails("ERR syntax error", "bitpos", "s", "1", "0", "1", "2", "3"),
		fails("ERR syntax error", "bitpos", "s", "1", "0", "x", "foo"),
		fails("ERR value is not an integer or out of range", "bitpos", "s", "1", "0", "x", "bit"),
		reply(int64(1), "rpush", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitpos", "l", "1"),
	})
}

// Ensure that BITOP pads shorter sources with zeros, replaces its
// destination as SET does (dropping its expiry and its type), and deletes
// it when every source is empty.
func TestBitOp(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "s", "foobar"),
		ok("set", "x", "\xc8\x7f\xff"),
		reply(int64(6), "bitop", "and", "d", "s", "x"),
		reply("@oo\x00\x00\x00", "get", "d"),
		reply(int64(6), "bitop", "XOR", "d", "s", "x", "missing"),
		reply("\xae\x10\x90bar", "get", "d"),
		reply(int64(6), "bitop", "or", "d", "s", "x"),
		reply("\xee\x7f\xffbar", "get", "d"),
		reply(int64(3), "bitop", "not", "d", "x"),
		reply("\x37\x80\x00", "get", "d"),
		ok("set", "d", "v", "ex", "100"),
		reply(int64(6), "bitop", "or", "d", "s"),
		reply(int64(-1), "ttl", "d"),
		reply(int64(1), "rpush", "l", "a"),
		reply(int64(6), "bitop", "or", "l", "s"),
		reply("string", "type", "l"),
		reply(int64(0), "bitop", "and", "d", "missing", "missing2"),
		reply(int64(0), "exists", "d"),
		reply(int64(1), "rpush", "l2", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitop", "and", "d", "l2", "s"),
		fails("ERR BITOP NOT must be called with a single source key.", "bitop", "not", "d", "s", "x"),
		fails("ERR syntax error", "bitop", "nand", "d", "s"),
		fails("ERR wrong number of arguments for 'bitop' command", "bitop", "and", "d"),
	})
}

// Ensure that the bitmap commands emit Redis's keyspace events: `setbit`
// for SETBIT and a changing BITFIELD, `set` and `del` for BITOP's
// destination, nothing when nothing changed.
func TestBitmapEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	if err := c.ConfigSet(t.Context(), "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	_, next := keyevents(t, e)
	for _, cmd := range [][]any{
		{"setbit", "a", "3", "1"}, {"setbit", "a", "3", "1"}, {"bitfield", "a", "get", "u8", "0"},
		{"bitfield", "a", "set", "u8", "0", "17"}, {"bitfield", "a", "set", "u8", "0", "17"},
		{"bitop", "or", "d", "a"}, {"bitop", "or", "d", "missing"}, {"bitop", "or", "d", "missing"},
		{"pfadd", "h", "x"}, {"pfadd", "h", "x"}, {"pfcount", "h"}, {"pfmerge", "h2", "h"}, {"set", "end", "1"},
	} {
		if err := c.Do(t.Context(), cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	want := []string{"setbit a", "setbit a", "set d", "del d", "pfadd h", "pfadd h2", "set end"}
	got := next(len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}
