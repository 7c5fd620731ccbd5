package script

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// Payloads of FUNCTION DUMP from redis-server 7.0: their code strings are
// LZF-compressed.
const (
	redisDumpMylib = "f5c34056405b1f23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f0b66756e6374696f6e28276d79400b02272c2040066012116b6579732c2061726773292072657475726e600c075b315d20656e64290a008d5936adc6e707da"
	redisDumpBig   = "f5c34097410a1223216c7561206e616d653d6269670a2d2d2061e06200180a72656469732e72656769737465725f66756e6374696f6e7bc008005f60990027209a0c66272c2063616c6c6261636b3dc01e13286b6579732c2061726773292072657475726e20402c1f2720656e642c20666c6167733d7b276e6f2d777269746573277d2c2064657363027269704066033d276120205a05206f6e65277d0a00083c09b8dcedb11e"
)

func call(e *Engine, name string, args ...string) Reply {
	var a [][]byte
	for _, s := range args {
		a = append(a, []byte(s))
	}
	return e.Call(context.Background(), name, nil, a, &echoHost{})
}

func TestRestoreRedisPayloads(t *testing.T) {
	e := New(nil)
	for _, p := range []string{redisDumpMylib, redisDumpBig} {
		b, _ := hex.DecodeString(p)
		if err := e.RestoreLibraries(b, RestoreAppend); err != nil {
			t.Fatal(err)
		}
	}
	if got := render(call(e, "myfunc", "hello")); got != "hello" {
		t.Fatalf("myfunc = %q", got)
	}
	if got := render(call(e, "BIGF")); got != "big" {
		t.Fatalf("bigf = %q", got)
	}
	libs := e.Libraries()
	if len(libs) != 2 || libs[0].Name != "big" || libs[1].Name != "mylib" {
		t.Fatalf("libraries = %+v", libs)
	}
	f := libs[0].Functions[0]
	if f.Name != "bigf" || f.Description != "a big one" || !f.HasDescription || f.Flags != FlagNoWrites {
		t.Fatalf("bigf = %+v", f)
	}
	if want := "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"; string(libs[1].Code) != want {
		t.Fatalf("code = %q", libs[1].Code)
	}
	// Our dump restores into a new engine, and again over itself only
	// with REPLACE.
	dump := e.DumpLibraries()
	e2 := New(nil)
	if err := e2.RestoreLibraries(dump, RestoreAppend); err != nil {
		t.Fatal(err)
	}
	if err := e2.RestoreLibraries(dump, RestoreAppend); err == nil || err.Error() != "ERR Library big already exists" {
		t.Fatalf("append over itself: %v", err)
	}
	if err := e2.RestoreLibraries(dump, RestoreReplace); err != nil {
		t.Fatal(err)
	}
	if got := render(call(e2, "myfunc", "x")); got != "x" {
		t.Fatalf("myfunc after restore = %q", got)
	}
	bad := append([]byte(nil), dump...)
	bad[3] ^= 1
	if err := e2.RestoreLibraries(bad, RestoreFlush); err == nil || err.Error() != "ERR DUMP payload version or checksum are wrong" {
		t.Fatalf("corrupt payload: %v", err)
	}
	if n, _ := e2.FunctionCounts(); n != 2 {
		t.Fatalf("a failed restore changed the libraries: %d", n)
	}
}

func TestLoadLibraryErrors(t *testing.T) {
	e := New(nil)
	if _, err := e.LoadLibrary([]byte("#!lua name=lib\nredis.register_function('f', function() return 1 end)"), false); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ code, want string }{
		{"return 1", "ERR Missing library metadata"},
		{"#!lua name=lib", "ERR Invalid library metadata"},
		{"#!lua name=lib\nredis.register_function('g', function() end)", "ERR Library 'lib' already exists"},
		{"#!lua\nreturn 1", "ERR Library name was not given"},
		{"#!lua name=a name=b\n", "ERR Invalid metadata value, name argument was given multiple times"},
		{"#!lua name=a foo=bar\n", "ERR Invalid metadata value given: foo=bar"},
		{"#!js name=a\n", "ERR Engine 'js' not found"},
		{"#!lua name=a-b\n", errLibraryName},
		{"#!lua name=a\nreturn 1", "ERR No functions registered"},
		{"#!lua name=a\nredis.register_function('f', function() end)", "ERR Function f already exists"},
		{"#!lua name=a\nredis.register_function('g', function() end) redis.register_function('g', function() end)",
			"ERR Error registering functions: ERR Function already exists in the library"},
		{"#!lua name=a\nredis.call('ping')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
		{"#!lua name=a\nmath.random()", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'math'"},
		{"#!lua name=a\nx = 1", "ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table"},
		{"#!lua name=a\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}",
			"ERR Error registering functions: ERR unknown flag given"},
		{"#!lua name=a\nreturn 1 +", "ERR Error compiling function: user_function:2: unexpected symbol near '<eof>'"},
	}
	for _, c := range cases {
		_, err := e.LoadLibrary([]byte(c.code), false)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: err = %v, want %q", c.code, err, c.want)
		}
	}
	if l, f := e.FunctionCounts(); l != 1 || f != 1 {
		t.Fatalf("failed loads changed the libraries: %d %d", l, f)
	}
}

// A library's locals are shared by its functions and last from one call
// to the next, as in Redis's one Lua state for functions; replacing the
// library starts them over.
func TestLibraryStateIsShared(t *testing.T) {
	e := New(nil)
	code := "#!lua name=counter\nlocal n = 0\n" +
		"redis.register_function('incr', function() n = n + 1 return n end)\n" +
		"redis.register_function('get', function() return n end)"
	if _, err := e.LoadLibrary([]byte(code), false); err != nil {
		t.Fatal(err)
	}
	call(e, "incr")
	call(e, "incr")
	if got := render(call(e, "get")); got != "2" {
		t.Fatalf("get = %s", got)
	}
	if _, err := e.LoadLibrary([]byte(code), true); err != nil {
		t.Fatal(err)
	}
	if got := render(call(e, "get")); got != "0" {
		t.Fatalf("get after replace = %s", got)
	}
	if got := render(call(e, "nosuch")); got != "ERR Function not found" {
		t.Fatalf("nosuch = %s", got)
	}
	got := render(call(e, "incr", "x"))
	if got != "1" {
		t.Fatalf("incr = %s", got)
	}
	r := e.Call(context.Background(), "get", nil, nil, &echoHost{})
	if !strings.Contains(render(r), "1") {
		t.Fatalf("get = %s", render(r))
	}
}
