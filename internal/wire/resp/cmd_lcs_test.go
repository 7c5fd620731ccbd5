package resp_test

import "testing"

// Ensure that LCS answers as Redis's documentation shows for "ohmytext"
// and "mynewtext", with each option, and refuses what Redis refuses.
func TestLCS(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	i := func(n int64) any { return n }
	runSteps(t, e, c, []step{
		ok("mset", "key1", "ohmytext", "key2", "mynewtext"),
		reply("mytext", "lcs", "key1", "key2"),
		reply(int64(6), "lcs", "key1", "key2", "len"),
		reply([]any{"matches", []any{
			[]any{[]any{i(4), i(7)}, []any{i(5), i(8)}},
			[]any{[]any{i(2), i(3)}, []any{i(0), i(1)}},
		}, "len", i(6)}, "lcs", "key1", "key2", "idx"),
		reply([]any{"matches", []any{
			[]any{[]any{i(4), i(7)}, []any{i(5), i(8)}},
		}, "len", i(6)}, "lcs", "key1", "key2", "idx", "minmatchlen", "4"),
		reply([]any{"matches", []any{
			[]any{[]any{i(4), i(7)}, []any{i(5), i(8)}, i(4)},
			[]any{[]any{i(2), i(3)}, []any{i(0), i(1)}, i(2)},
		}, "len", i(6)}, "lcs", "key1", "key2", "idx", "withmatchlen", "minmatchlen", "-5"),
		reply("", "lcs", "key1", "missing"),
		reply(int64(0), "lcs", "missing", "missing2", "len"),
		reply([]any{"matches", []any{}, "len", i(0)}, "lcs", "key1", "missing", "idx"),
	})
	runSteps(t, e, c, []step{
		ok("set", "same", "abc"),
		reply("abc", "lcs", "same", "same"),
		reply([]any{"matches", []any{[]any{[]any{i(0), i(2)}, []any{i(0), i(2)}}}, "len", i(3)}, "lcs", "same", "same", "idx"),
		reply(int64(1), "rpush", "list", "a"),
		fails("ERR The specified keys must contain string values", "lcs", "key1", "list"),
		fails("ERR The specified keys must contain string values", "lcs", "list", "key1"),
		fails("ERR If you want both the length and indexes, please just use IDX.", "lcs", "key1", "key2", "len", "idx"),
		fails("ERR syntax error", "lcs", "key1", "key2", "minmatchlen"),
		fails("ERR syntax error", "lcs", "key1", "key2", "other"),
		fails("ERR value is not an integer or out of range", "lcs", "key1", "key2", "minmatchlen", "x"),
		fails("ERR wrong number of arguments for 'lcs' command", "lcs", "key1"),
	})
}
