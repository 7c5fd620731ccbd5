package resp_test

import "testing"

// TestEvalTostringOfNumbers: tostring and string.format's %s and %q write
// numbers as Lua 5.1 does in Redis (C's %.14g), and math.huge is infinity.
func TestEvalTostringOfNumbers(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply([]any{"0.3", "1e+15", "9.007199254741e+15", "1e-05", "inf", "-inf", "3", "-2.5",
			"1.2345678901234e+14", "0.33333333333333", "-nan", "nan", "4.9406564584125e-324"}, "eval",
			`return {tostring(0.1+0.2), tostring(1e15), tostring(2^53), tostring(1e-5), tostring(math.huge),
				tostring(-math.huge), tostring(3), tostring(-2.5), tostring(123456789012345), tostring(1/3),
				tostring(0/0), tostring(-(0/0)), tostring(5e-324)}`, "0"),
		// Anything else as before, a __tostring metamethod included.
		reply([]any{"x", "nil", "true", "meta"}, "eval",
			"return {tostring('x'), tostring(nil), tostring(true), tostring(setmetatable({}, {__tostring = function() return 'meta' end}))}", "0"),
		reply(int64(1), "eval", "return math.huge > 1e308 and 1 or 0", "0"),
		// string.format's %s and %q write numbers the same way.
		reply([]any{"0.3|1e+15|2.5   |%s|7|0.333|x", "1e+15", `"0.3"`}, "eval",
			"return {string.format('%s|%5s|%-6s|%%s|%d|%.3f|%s', 0.1+0.2, 1e15, 2.5, 7, 1/3, 'x'), string.format('%s', 1e15), string.format('%q', 0.1+0.2)}", "0"),
	})
}
