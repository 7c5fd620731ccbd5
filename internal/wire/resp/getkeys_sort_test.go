package resp_test

import "testing"

// TestRedisCommandGetKeysSort: COMMAND GETKEYS finds SORT's destination
// as Redis does: the last STORE, never an argument of LIMIT, BY or GET.
func TestRedisCommandGetKeysSort(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply([]any{"abc", "def"}, "command", "getkeys", "sort", "abc", "store", "def"),
		reply([]any{"abc", "def"}, "command", "getkeys", "sort", "abc", "store", "invalid", "store", "stillbad", "store", "def"),
		reply([]any{"abc"}, "command", "getkeys", "sort", "abc", "limit", "0", "store", "by", "store"),
		reply([]any{"abc", "x"}, "command", "getkeys", "sort", "abc", "get", "store", "store", "x"),
		reply([]any{"abc"}, "command", "getkeys", "sort", "abc", "store"),
		reply([]any{"abc"}, "command", "getkeys", "sort_ro", "abc"),
	})
}
