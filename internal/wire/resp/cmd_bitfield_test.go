package resp_test

import "testing"

// Ensure that BITFIELD reads and writes signed and unsigned fields with
// every OVERFLOW mode, `#` offsets and Redis's errors, and that BITFIELD_RO
// reads only.
func TestBitField(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	i := func(n int64) any { return n }
	runSteps(t, e, c, []step{
		reply([]any{i(0), i(100), i(-56), i(200)}, "bitfield", "bf", "set", "i8", "0", "100", "get", "i8", "0", "incrby", "i8", "0", "100", "get", "u8", "0"),
		reply([]any{i(44), i(15), nil, i(0)}, "bitfield", "bf", "overflow", "sat", "incrby", "i8", "0", "100", "incrby", "u4", "3", "100",
			"overflow", "fail", "incrby", "u2", "10", "10", "get", "u2", "10"),
		reply([]any{i(-4755801206503243777), i(4467570830351532030)}, "bitfield", "bf", "overflow", "wrap",
			"incrby", "i64", "0", "9223372036854775807", "incrby", "i64", "0", "9223372036854775807"),
		reply([]any{i(2233785415175766015), i(9223372036854775807), i(0), i(-5), i(0)}, "bitfield", "bf",
			"set", "u63", "0", "-1", "get", "u63", "0", "set", "i64", "#2", "-5", "get", "i64", "#2", "get", "i3", "#1000"),
		reply([]any{i(0), i(-4), i(3)}, "bitfield", "bf", "overflow", "sat", "overflow", "wrap", "incrby", "u3", "0", "9",
			"overflow", "sat", "incrby", "i3", "0", "-99", "incrby", "i3", "0", "99"),
		reply([]any{i(0), i(0), i(0), nil}, "bitfield", "x", "set", "i8", "0", "200", "overflow", "sat", "set", "i8", "8", "200",
			"set", "u8", "16", "-1", "overflow", "fail", "set", "u8", "24", "300"),
		reply("\xc8\x7f\xff\x00", "get", "x"), // grown for the failed SET too
		// Redis's check of the room above the value wraps for so negative
		// a value: it saturates upward.
		reply([]any{i(0), i(2047)}, "bitfield", "q", "overflow", "sat", "set", "i12", "0", "-9223372036854775808", "get", "i12", "0"),
		reply([]any{i(-56), i(15)}, "bitfield_ro", "x", "get", "i8", "0", "get", "u4", "#3"),
		reply([]any{i(0), i(0)}, "bitfield", "missing", "get", "u8", "0", "get", "i16", "3"),
		reply(int64(0), "exists", "missing"),
		// A failed write still creates the key, zero filled, as Redis does.
		reply([]any{nil}, "bitfield", "created", "overflow", "fail", "incrby", "u2", "0", "10"),
		reply("\x00", "get", "created"),
		reply([]any{}, "bitfield", "x"),
		fails("ERR bit offset is not an integer or out of range", "bitfield", "x", "set", "u8", "#-1", "1"),
		fails("ERR bit offset is not an integer or out of range", "bitfield", "x", "set", "u8", "4294967296", "1"),
		fails("ERR bit offset is not an integer or out of range", "bitfield", "x", "set", "u8", "#536870912", "1"),
		fails("ERR bit offset is not an integer or out of range", "bitfield", "x", "get", "u8", "x"),
		fails("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "bitfield", "x", "set", "u64", "0", "1"),
		fails("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "bitfield", "x", "get", "i65", "0"),
		fails("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "bitfield", "x", "get", "i0", "0"),
		fails("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.", "bitfield", "x", "get", "U8", "0"),
		fails("ERR syntax error", "bitfield", "x", "set", "u8", "0"),
		fails("ERR syntax error", "bitfield", "x", "get", "u8"),
		fails("ERR syntax error", "bitfield", "x", "foo"),
		fails("ERR syntax error", "bitfield", "x", "overflow"),
		fails("ERR Invalid OVERFLOW type specified", "bitfield", "x", "overflow", "foo", "get", "u8", "0"),
		fails("ERR value is not an integer or out of range", "bitfield", "x", "set", "u8", "0", "x"),
		fails("ERR BITFIELD_RO only supports the GET subcommand", "bitfield_ro", "x", "set", "u8", "0", "1"),
		reply(int64(1), "rpush", "l", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitfield", "l", "get", "u8", "0"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitfield", "l", "set", "u8", "0", "1"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "bitfield_ro", "l", "get", "u8", "0"),
		fails("ERR BITFIELD_RO only supports the GET subcommand", "bitfield_ro", "l", "set", "u8", "0", "1"),
		fails("ERR wrong number of arguments for 'bitfield_ro' command", "bitfield_ro"),
	})
}
