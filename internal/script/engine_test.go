package script

import (
	"context"
	"strings"
	"testing"
)

// echoHost answers every command with its arguments as an array of bulk
// strings, and counts the calls.
type echoHost struct{ calls int }

// CheckACL allows every command but "nosuch", which it does not know, and
// "denied".
func (h *echoHost) CheckACL(args [][]byte) (bool, bool) {
	return string(args[0]) != "denied", string(args[0]) != "nosuch"
}

func (h *echoHost) Call(args [][]byte, proto int, noWrites bool) Reply {
	h.calls++
	r := Reply{Kind: Array}
	for _, a := range args {
		r.Elems = append(r.Elems, Reply{Kind: Bulk, Str: a})
	}
	return r
}

func eval(t *testing.T, e *Engine, body string, keys ...string) Reply {
	t.Helper()
	var k [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	return e.Eval(context.Background(), SHA1([]byte(body)), []byte(body), k, nil, &echoHost{})
}

func TestEngineRedisSuiteCases(t *testing.T) {
	e := New(nil)
	cases := []struct {
		body string
		want string // Reply rendered by render
	}{
		{"return 'hello' --trailing comment", "hello"},
		{`assert(0x7fffffff == 2147483647, "broken hex literals");
		  assert(0xffffffff == -1 or 0xffffffff == 2^32-1, "broken hex literals");
		  assert(tostring(-1) == "-1", "broken tostring()");
		  assert(tostring(0xffffffff) == "-1" or tostring(0xffffffff) == "4294967295", "broken tostring()")`, "nil"},
		{`assert(bit.tobit(1) == 1); assert(bit.band(1) == 1); assert(bit.bxor(1,2) == 3);
		  assert(bit.bor(1,2,4,8,16,32,64,128) == 255)`, "nil"},
		{"local a = {} for i=1,7999 do a[i] = 1 end return #redis.call('lpush', 'l', unpack(a))", "8001"},
		{"return redis.call('set', 'k', 9007199254740991)[3]", "9007199254740991"},
		{"return redis.call('set', 'k', -0.5)[3]", "-0.5"},
		{"return redis.call('set', 'k', 1e300)[3]", "1.0000000000000001e+300"},
		{"return bit.tohex(-1, -4)", "FFFF"},
		{"return string.rep('ab', 3)", "ababab"},
		{"return string.rep('ab', 0)", ""},
		{"return bit.lshift(1, 31)", "-2147483648"},
		{"return cjson.encode({1, 'a', true, {x=1}})", `[1,"a",true,{"x":1}]`},
		{"return cjson.encode({})", "{}"},
		{"return cjson.encode('a/b\\n')", `"a\/b\n"`},
		{"return cjson.decode('[1,2]')[2]", "2"},
		// Redis's "JSON smoke test"
		{`local some_map = {s1="Some string", n1=100, a1={"Some","String","Array"}, nil1=nil, b1=true, b2=false}
		local encoded = cjson.encode(some_map)
		local decoded = cjson.decode(encoded)
		assert(table.concat(some_map) == table.concat(decoded))
		cjson.encode_keep_buffer(false)
		local table1 = {one="one", [1]="one"}
		decoded = cjson.decode(cjson.encode(table1))
		assert(decoded["one"] == table1["one"])
		assert(decoded["1"] == table1[1])
		local array1 = {[1]="one", [2]="two"}
		assert(table.concat(array1) == table.concat(cjson.decode(cjson.encode(array1))))
		local invalid_map = {}
		invalid_map[false] = "false"
		local ok, encoded = pcall(cjson.encode, invalid_map)
		assert(ok == false)
		cjson.encode_max_depth(1)
		ok, encoded = pcall(cjson.encode, some_map)
		assert(ok == false)
		cjson.decode_max_depth(1)
		ok, decoded = pcall(cjson.decode, '{"obj": {"array": [1,2,3,4]}}')
		assert(ok == false)
		ok, encoded = pcall(cjson.encode, {num1=0/0})
		assert(ok == false)
		cjson.encode_invalid_numbers(true)
		ok, encoded = pcall(cjson.encode, {num1=0/0})
		assert(ok == true)
		return encoded`, `{"num1":nan}`},
		{"return cjson.encode_max_depth()", "1000"},
		{"math.randomseed(10) local a = math.random() math.randomseed(10) local b = math.random() math.randomseed(20) return {a == b and 1 or 0, a ~= math.random() and 1 or 0}", "[1 1]"},
		{"local n = math.random(3) local m = math.random(5, 6) return {n >= 1 and n <= 3 and 1 or 0, m >= 5 and m <= 6 and 1 or 0}", "[1 1]"},
		{"return cjson.decode('{\"a\":null}').a == cjson.null and 1 or 0", "1"},
	}
	for _, c := range cases {
		if got := render(eval(t, e, c.body)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.body, got, c.want)
		}
	}
}

func TestEngineRecursiveReply(t *testing.T) {
	e := New(nil)
	r := eval(t, e, "local a = {}; local b = {a}; a[1] = b; return a")
	depth := 0
	for r.Kind == Array {
		if len(r.Elems) != 1 {
			t.Fatalf("array of %d at depth %d", len(r.Elems), depth)
		}
		r = r.Elems[0]
		depth++
	}
	if r.Kind != Error || string(r.Str) != "ERR reached lua stack limit" || depth != maxDepth {
		t.Fatalf("at depth %d: %v %q", depth, r.Kind, r.Str)
	}
}

func TestEngineCacheAndErrors(t *testing.T) {
	e := New(nil)
	body := "return 1"
	sha, err := e.Load([]byte(body))
	if err != nil || sha != SHA1([]byte(body)) || !e.Exists(strings.ToUpper(sha)) || e.Len() != 1 {
		t.Fatalf("load = %s %v", sha, err)
	}
	if r := e.Eval(context.Background(), sha, nil, nil, nil, &echoHost{}); r.Kind != Int || r.Int != 1 {
		t.Fatalf("evalsha = %+v", r)
	}
	e.Flush()
	if r := e.Eval(context.Background(), sha, nil, nil, nil, &echoHost{}); r.Kind != Error || string(r.Str) != "NOSCRIPT No matching script. Please use EVAL." {
		t.Fatalf("evalsha after flush = %+v", r)
	}
	if _, err := e.Load([]byte("x =")); err == nil || err.Error() != "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'" {
		t.Fatalf("compile error = %v", err)
	}
	// The interpreter survives a huge unpack and a runaway recursion.
	for _, body := range []string{"return unpack({1, 2, 3}, 0, 2147483647)", "local function f() return 1 + f() end return f()",
		"return string.rep('x', 2^40)", "return #string.rep('abc', 2^30)"} {
		if r := eval(t, e, body); r.Kind != Error {
			t.Errorf("%s = %+v, want an error", body, r)
		}
	}
	if r := eval(t, e, "return 2"); r.Kind != Int || r.Int != 2 {
		t.Fatalf("after errors = %+v", r)
	}
}

func TestEngineHostPanicIsRaisedAgain(t *testing.T) {
	e := New(nil)
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want boom", p)
		}
	}()
	e.Eval(context.Background(), SHA1([]byte("redis.call('x')")), []byte("redis.call('x')"), nil, nil, panicHost{})
	t.Fatal("no panic")
}

type panicHost struct{}

func (panicHost) Call([][]byte, int, bool) Reply { panic("boom") }
func (panicHost) CheckACL([][]byte) (bool, bool) { panic("boom") }

func render(r Reply) string {
	switch r.Kind {
	case Bulk, Status, Error:
		return string(r.Str)
	case Int:
		return itoa(r.Int)
	case Nil:
		return "nil"
	case Array:
		var parts []string
		for _, e := range r.Elems {
			parts = append(parts, render(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?"
}

func itoa(n int64) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Ensure that a script stops once its context is done, even a loop that
// catches errors with pcall, and that the engine runs scripts after it.
func TestCancelledContextStopsScript(t *testing.T) {
	e := New(nil)
	for _, body := range []string{
		"while true do end",
		"while true do pcall(function() while true do end end) end",
		"local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end",
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan Reply)
		go func() { done <- e.Eval(ctx, SHA1([]byte(body)), []byte(body), nil, nil, &echoHost{}) }()
		cancel()
		r := <-done
		if r.Kind != Error || string(r.Str) != Killed {
			t.Fatalf("%s: got %+v, want the error %q", body, r, Killed)
		}
	}
	if r := eval(t, e, "return 1"); r.Kind != Int || r.Int != 1 {
		t.Fatalf("script after a cancelled one: %+v", r)
	}
}

// Ensure that calling nil fails with Lua 5.1's words, and that a dumped
// function does not load back (Redis's loadstring refuses binary chunks).
func TestCallNilAndStringDump(t *testing.T) {
	e := New(nil)
	for body, want := range map[string]string{
		"local t = {} return t.x()":                                 "ERR user_script:1: attempt to call field 'x' (a nil value)",
		"local f return f()":                                        "ERR user_script:1: attempt to call local 'f' (a nil value)",
		"local f local g = function() return f() end return g()":    "ERR user_script:1: attempt to call upvalue 'f' (a nil value)",
		"return loadstring(string.dump(function() return 1 end))()": "ERR user_script:1: attempt to call a nil value",
		"return type(getmetatable(nil))":                            "boolean",
	} {
		got, _, _ := strings.Cut(render(eval(t, e, body)), " script: ")
		if got != want {
			t.Errorf("%s: got %q, want %q", body, got, want)
		}
	}
}

func TestEngineACLCheckCmd(t *testing.T) {
	e := New(nil)
	for body, want := range map[string]string{
		"return {redis.acl_check_cmd('get', 'k') and 1 or 0, redis.acl_check_cmd('denied', 1) and 1 or 0}": "[1 0]",
		"return redis.acl_check_cmd('nosuch')": "ERR Invalid command passed to redis.acl_check_cmd()",
		"return {pcall(redis.acl_check_cmd)}":  "[nil ERR Please specify at least one argument for this redis lib call]",
	} {
		if got := render(eval(t, e, body)); !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", body, got, want)
		}
	}
}
