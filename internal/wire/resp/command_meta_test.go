package resp_test

import (
	"reflect"
	"testing"
)

// Ensure that COMMAND GETKEYS finds the keys that follow a numkeys
// argument, as Redis's keynum key specs do.
func TestCommandGetKeysKeynum(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	for _, tc := range []struct {
		args []any
		want []any
		err  string
	}{
		{args: []any{"zunion", "2", "a", "b", "withscores"}, want: []any{"a", "b"}},
		{args: []any{"zinter", "1", "a"}, want: []any{"a"}},
		{args: []any{"sintercard", "2", "a", "b", "limit", "1"}, want: []any{"a", "b"}},
		{args: []any{"zunionstore", "d", "2", "a", "b"}, want: []any{"d", "a", "b"}},
		{args: []any{"lmpop", "2", "a", "b", "left"}, want: []any{"a", "b"}},
		{args: []any{"blmpop", "0", "2", "a", "b", "left"}, want: []any{"a", "b"}},
		{args: []any{"bzmpop", "0", "1", "z", "min"}, want: []any{"z"}},
		{args: []any{"get", "k"}, want: []any{"k"}},
		{args: []any{"zunion", "5", "a"}, err: "ERR Invalid arguments specified for command"},
		{args: []any{"zunion", "x", "a"}, err: "ERR Invalid arguments specified for command"},
	} {
		got, err := c.Do(t.Context(), append([]any{"command", "getkeys"}, tc.args...)...).Result()
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("GETKEYS %v: %v %v, want %q", tc.args, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("GETKEYS %v = %v %v, want %v", tc.args, got, err, tc.want)
		}
	}
}

// Ensure that COMMAND INFO carries Redis's tips and keynum key specs, and
// COMMAND DOCS its deprecation notes, in the shapes Redis 7.2 replies.
func TestCommandInfoTipsAndDocs(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	info, err := c.Do(t.Context(), "command", "info", "srandmember", "get", "zunion").Slice()
	if err != nil || len(info) != 3 {
		t.Fatalf("COMMAND INFO: %v %v", info, err)
	}
	tips := func(i int) any { return info[i].([]any)[7] }
	if got := tips(0); !reflect.DeepEqual(got, []any{"nondeterministic_output"}) {
		t.Errorf("srandmember tips %#v", got)
	}
	if got := tips(1); !reflect.DeepEqual(got, []any{}) {
		t.Errorf("get tips %#v", got)
	}
	specs := info[2].([]any)[8].([]any)
	want := map[any]any{
		"flags":        []any{},
		"begin_search": map[any]any{"type": "index", "spec": map[any]any{"index": int64(1)}},
		"find_keys":    map[any]any{"type": "keynum", "spec": map[any]any{"keynumidx": int64(0), "firstkey": int64(1), "keystep": int64(1)}},
	}
	if len(specs) != 1 || !reflect.DeepEqual(specs[0], want) {
		t.Errorf("zunion key specs %#v", specs)
	}
	docs, err := c.Do(t.Context(), "command", "docs", "getset", "get").Result()
	if err != nil {
		t.Fatal(err)
	}
	m := docs.(map[any]any)
	gs := m["getset"].(map[any]any)
	if !reflect.DeepEqual(gs["doc_flags"], []any{"deprecated"}) || gs["deprecated_since"] != "6.2.0" ||
		gs["replaced_by"] != "`SET` with the `!GET` argument" {
		t.Errorf("getset docs %#v", gs)
	}
	if _, ok := m["get"].(map[any]any)["doc_flags"]; ok {
		t.Errorf("get docs %#v", m["get"])
	}
}
