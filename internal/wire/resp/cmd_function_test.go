package resp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
	"github.com/mayfly/mayfly/internal/wire/resp"
)

const libHello = "#!lua name=hello\n" +
	"redis.register_function('hello', function(keys, args) return 'hello ' .. args[1] end)\n" +
	"redis.register_function{function_name='setk', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, description='sets a key'}\n" +
	"redis.register_function{function_name='getk', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes', 'allow-stale'}}"

// Ensure that FUNCTION LOAD, FCALL, FCALL_RO, LIST, STATS, DELETE and
// FLUSH answer as Redis 7.0 does, with its errors.
func TestFunctions(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("hello", "function", "load", libHello),
		fails("ERR Library 'hello' already exists", "function", "load", libHello),
		reply("hello", "function", "load", "REPLACE", libHello),
		fails("ERR Unknown option given: foo", "function", "load", "foo", libHello),
		fails("ERR Missing library metadata", "function", "load", "return 1"),
		fails("ERR Invalid metadata value given: foo=bar", "function", "load", "#!lua name=x foo=bar\n"),
		fails("ERR Engine 'js' not found", "function", "load", "#!js name=x\n"),
		fails("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long", "function", "load", "#!lua name=a-b\n"),
		fails("ERR Function HELLO already exists", "function", "load", "#!lua name=other\nredis.register_function('HELLO', function() end)"),
		fails("ERR No functions registered", "function", "load", "#!lua name=x\nreturn 1"),
		reply("hello world", "fcall", "hello", "0", "world"),
		reply("hello world", "fcall", "HELLO", "0", "world"),
		ok("fcall", "setk", "1", "k", "v"),
		reply("v", "fcall_ro", "getk", "1", "k"),
		fails("ERR Can not execute a script with write flag using *_ro command.", "fcall_ro", "setk", "1", "k", "v"),
		fails("ERR Function not found", "fcall", "nosuch", "0"),
		fails("ERR Bad number of keys provided", "fcall", "hello", "x"),
		fails("ERR Number of keys can't be greater than number of args", "fcall", "hello", "3", "a"),
		fails("ERR Number of keys can't be negative", "fcall", "hello", "-1"),
		reply([]any{"k"}, "command", "getkeys", "fcall", "setk", "1", "k", "v"),
		reply([]any{[]any{"library_name", "hello", "engine", "LUA", "functions", []any{
			[]any{"name", "getk", "description", nil, "flags", []any{"no-writes", "allow-stale"}},
			[]any{"name", "hello", "description", nil, "flags", []any{}},
			[]any{"name", "setk", "description", "sets a key", "flags", []any{}},
		}}}, "function", "list"),
		reply([]any{}, "function", "list", "libraryname", "nomatch*"),
		reply([]any{[]any{"library_name", "hello", "engine", "LUA", "functions", []any{
			[]any{"name", "getk", "description", nil, "flags", []any{"no-writes", "allow-stale"}},
			[]any{"name", "hello", "description", nil, "flags", []any{}},
			[]any{"name", "setk", "description", "sets a key", "flags", []any{}},
		}, "library_code", libHello}}, "function", "list", "withcode", "libraryname", "HEL*"),
		fails("ERR Unknown argument withcode", "function", "list", "withcode", "withcode"),
		fails("ERR library name argument was not given", "function", "list", "libraryname"),
		reply([]any{"running_script", nil, "engines", []any{"LUA", []any{"libraries_count", int64(1), "functions_count", int64(3)}}}, "function", "stats"),
		fails("NOTBUSY No scripts in execution right now.", "function", "kill"),
		// FLUSHALL deletes keys, not functions.
		ok("flushall"),
		reply("hello x", "fcall", "hello", "0", "x"),
		fails("ERR Library not found", "function", "delete", "nosuch"),
		ok("function", "delete", "hello"),
		fails("ERR Function not found", "fcall", "hello", "0"),
		reply("hello", "function", "load", libHello),
		fails("ERR FUNCTION FLUSH only supports SYNC|ASYNC option", "function", "flush", "bad"),
		fails("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.", "function", "flush", "sync", "extra"),
		ok("function", "flush", "async"),
		reply([]any{}, "function", "list"),
	})
}

// Ensure that the load sandbox and the call environment are Redis's:
// only register_function, log and the version fields while loading; the
// whole API but register_function in a call; library locals shared.
func TestFunctionSandbox(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'",
			"function", "load", "#!lua name=x\nredis.call('ping')"),
		fails("ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'math'",
			"function", "load", "#!lua name=x\nreturn math.random()"),
		fails("ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table",
			"function", "load", "#!lua name=x\na = 1"),
		reply("lib", "function", "load", "#!lua name=lib\nlocal n = 0\nlocal r = redis\n"+
			"redis.log(redis.LOG_NOTICE, 'loading', redis.REDIS_VERSION)\n"+
			"redis.register_function('count', function() n = n + 1 return n end)\n"+
			"redis.register_function('ping', function() return redis.call('ping') end)\n"+
			"redis.register_function('again', function() r.register_function('x', function() end) end)\n"+
			"redis.register_function('keys', function() return KEYS end)\n"+
			"redis.register_function('pack', function() return struct.pack('>H', 258) end)"),
		reply(int64(1), "fcall", "count", "0"),
		reply(int64(2), "fcall", "count", "0"),
		reply("PONG", "fcall", "ping", "0"),
		reply("\x01\x02", "fcall", "pack", "0"),
		fails("ERR redis.register_function can only be called on FUNCTION LOAD command script: again, on @user_function:7.", "fcall", "again", "0"),
		fails("ERR user_function:8: Script attempted to access nonexistent global variable 'KEYS' script: keys, on @user_function:8.", "fcall", "keys", "0"),
	})
}

// Ensure that the flags of a "#!lua" EVAL script follow Redis's rules.
func TestEvalShebangFlags(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "k", "v"),
		reply("v", "eval_ro", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k"),
		fails("ERR Can not execute a script with write flag using *_ro command.", "eval_ro", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "k"),
		// Without a shebang, EVAL_RO refuses the writes one by one.
		reply("v", "eval_ro", "return redis.call('get', KEYS[1])", "1", "k"),
		fails("ERR Write commands are not allowed from read-only scripts. script: "+sha1hex("return redis.call('set', KEYS[1], 'x')")+", on @user_script:1.",
			"eval_ro", "return redis.call('set', KEYS[1], 'x')", "1", "k"),
		fails("ERR Write commands are not allowed from read-only scripts. script: "+sha1hex("#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')")+", on @user_script:2.",
			"eval", "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')", "1", "k"),
		ok("eval", "#!lua flags=allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn redis.call('set', KEYS[1], 'x')", "1", "k"),
		fails("ERR Unexpected flag in script shebang: bad", "eval", "#!lua flags=no-writes,bad\nreturn 1", "0"),
		fails("ERR Unexpected flag in script shebang: NO-WRITES", "eval", "#!lua flags=NO-WRITES\nreturn 1", "0"),
		fails("ERR Unknown lua shebang option: foo", "eval", "#!lua foo\nreturn 1", "0"),
		fails("ERR Unexpected engine in script shebang: #!js", "eval", "#!js\nreturn 1", "0"),
	})
}

// Ensure that FUNCTION DUMP and FUNCTION RESTORE round-trip with each
// policy, and that a payload taken from redis-server restores.
func TestFunctionDumpRestore(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	if err := c.FunctionLoad(ctx, libHello).Err(); err != nil {
		t.Fatal(err)
	}
	dump, err := c.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	// FUNCTION DUMP of redis-server 7.0 after loading
	// "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"
	// (its code LZF-compressed).
	fromRedis := "\xf5\xc3\x40\x56\x40\x5b\x1f\x23\x21\x6c\x75\x61\x20\x6e\x61\x6d\x65\x3d\x6d\x79\x6c\x69\x62\x0a\x72\x65\x64\x69\x73\x2e\x72\x65\x67\x69\x73\x74\x65\x72\x5f\x0b\x66\x75\x6e\x63\x74\x69\x6f\x6e\x28\x27\x6d\x79\x40\x0b\x02\x27\x2c\x20\x40\x06\x60\x12\x11\x6b\x65\x79\x73\x2c\x20\x61\x72\x67\x73\x29\x20\x72\x65\x74\x75\x72\x6e\x60\x0c\x07\x5b\x31\x5d\x20\x65\x6e\x64\x29\x0a\x00\x8d\x59\x36\xad\xc6\xe7\x07\xda"
	runSteps(t, e, c, []step{
		fails("ERR Library hello already exists", "function", "restore", dump),
		ok("function", "restore", dump, "replace"),
		ok("function", "restore", fromRedis),
		reply("from redis", "fcall", "myfunc", "0", "from redis"),
		ok("function", "restore", dump, "FLUSH"),
		fails("ERR Function not found", "fcall", "myfunc", "0"),
		reply("hello x", "fcall", "hello", "0", "x"),
		fails("ERR DUMP payload version or checksum are wrong", "function", "restore", "bad_payload"),
		fails("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.", "function", "restore", dump, "bad"),
		fails("ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.", "function", "restore", "a", "b", "c"),
	})
}

// Ensure that the libraries are stored with the data: a server started
// again on the same store has them.
func TestFunctionsSurviveRestart(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	serve := func(do func(c *redis.Client)) {
		k, err := kv.Open(t.Context(), kv.Options{Store: st, Now: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		srv := resp.NewServer(resp.Options{KV: k})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		c := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		do(c)
		c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, resp.ErrServerClosed) {
			t.Fatal(err)
		}
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	serve(func(c *redis.Client) {
		if err := c.FunctionLoad(ctx, libHello).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	})
	serve(func(c *redis.Client) {
		if got, err := c.FCall(ctx, "hello", nil, "again").Result(); err != nil || got != "hello again" {
			t.Fatalf("FCALL after restart: %v %v", got, err)
		}
		if err := c.FunctionDelete(ctx, "hello").Err(); err != nil {
			t.Fatal(err)
		}
	})
	serve(func(c *redis.Client) {
		if err := c.FCall(ctx, "hello", nil).Err(); err == nil || err.Error() != "ERR Function not found" {
			t.Fatalf("FCALL of a deleted function after restart: %v", err)
		}
	})
}

const busyFunctionErr = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

// Ensure that FUNCTION KILL kills a busy function and SCRIPT KILL does
// not, that FUNCTION STATS shows it, and the other way round for EVAL.
func TestFunctionKill(t *testing.T) {
	clk := &clock{t: time.UnixMilli(start0)}
	e, mon := busyEnv(t, clk, nil)
	ctx := t.Context()
	a, b := connected(t, e), connected(t, e)
	if err := b.FunctionLoad(ctx, "#!lua name=loop\nredis.register_function('loop', function() while 1 do redis.call('ping') end end)").Err(); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() { res <- a.FCall(context.Background(), "loop", nil).Err() }()
	monitorUntil(t, mon, `lua] "ping"`)
	clk.Advance(time.Second)
	if err := b.Ping(ctx).Err(); err == nil || err.Error() != busyFunctionErr {
		t.Fatalf("PING while a function is busy: %v", err)
	}
	stats, err := b.Do(ctx, "function", "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	running := stats.([]any)[1].([]any)
	if running[0] != "name" || running[1] != "loop" || running[2] != "command" ||
		!equalStrings(running[3].([]any), "fcall", "loop", "0") || running[4] != "duration_ms" || running[5].(int64) < 1000 {
		t.Fatalf("FUNCTION STATS running_script = %v", running)
	}
	if err := b.ScriptKill(ctx).Err(); err == nil || err.Error() != busyFunctionErr {
		t.Fatalf("SCRIPT KILL of a function: %v", err)
	}
	if err := b.FunctionKill(ctx).Err(); err != nil {
		t.Fatalf("FUNCTION KILL: %v", err)
	}
	if err := <-res; err == nil || !strings.HasPrefix(err.Error(), "ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("the killed function's caller got %v", err)
	}

	go func() { res <- a.Eval(context.Background(), "while 1 do redis.call('ping', 'eval') end", nil).Err() }()
	monitorUntil(t, mon, `lua] "ping" "eval"`)
	clk.Advance(time.Second)
	if err := b.FunctionKill(ctx).Err(); err == nil || err.Error() != busyErr {
		t.Fatalf("FUNCTION KILL of an EVAL: %v", err)
	}
	if err := b.Do(ctx, "function", "stats").Err(); err == nil || err.Error() != busyErr {
		t.Fatalf("FUNCTION STATS during an EVAL: %v", err)
	}
	if err := b.ScriptKill(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-res; err == nil || err.Error() != "ERR Script killed by user with SCRIPT KILL..." {
		t.Fatalf("the killed script's caller got %v", err)
	}
}

func equalStrings(got []any, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// Ensure that INFO memory counts the functions and libraries loaded.
func TestFunctionsInInfo(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	if err := c.FunctionLoad(ctx, libHello).Err(); err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\r\nnumber_of_functions:3\r\n", "\r\nnumber_of_libraries:1\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO memory lacks %q:\n%s", want, info)
		}
	}
}

// Ensure that DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts call commands
// flagged noscript, as Redis's tests use it.
func TestDisableDenyScripts(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	body := "return redis.call('debug', 'protocol', 'integer')"
	runSteps(t, e, c, []step{
		fails("ERR This Redis command is not allowed from script script: "+sha1hex(body)+", on @user_script:1.", "eval", body, "0"),
		ok("debug", "set-disable-deny-scripts", "1"),
		reply(int64(12345), "eval", body, "0"),
		ok("debug", "set-disable-deny-scripts", "0"),
		fails("ERR This Redis command is not allowed from script script: "+sha1hex(body)+", on @user_script:1.", "eval", body, "0"),
	})
}

// Ensure that a script sees the reply an attribute annotates, not the
// attribute, as Redis's scripts do.
func TestScriptIgnoresAttributes(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("debug", "set-disable-deny-scripts", "1"),
		reply("Some real reply following the attribute", "eval", "redis.setresp(3) return redis.call('debug', 'protocol', 'attrib')", "0"),
	})
}

// Ensure that a client that starts to wait for the store while a chunk
// that goes on to run a function holds it gets BUSY once the function is
// busy, instead of waiting for the function's end.
func TestBusyForClientWaitingBeforeTheFunction(t *testing.T) {
	clk := &clock{t: time.UnixMilli(start0)}
	e, mon := busyEnv(t, clk, nil)
	ctx := t.Context()
	b, k := connected(t, e), connected(t, e)
	if err := b.FunctionLoad(ctx, "#!lua name=loop\nredis.register_function('loop', function() while 1 do redis.call('ping') end end)").Err(); err != nil {
		t.Fatal(err)
	}
	a := e.raw()
	// One chunk: DEBUG SLEEP holds the store, then FCALL runs the loop.
	fmt.Fprint(a, "*3\r\n$5\r\ndebug\r\n$5\r\nsleep\r\n$3\r\n0.3\r\n*3\r\n$5\r\nfcall\r\n$4\r\nloop\r\n$1\r\n0\r\n")
	time.Sleep(50 * time.Millisecond) // b's PING arrives during the sleep
	waiting := make(chan error, 1)
	go func() { waiting <- b.Ping(context.Background()).Err() }()
	monitorUntil(t, mon, `lua] "ping"`)
	clk.Advance(time.Second)
	if err := <-waiting; err == nil || err.Error() != busyFunctionErr {
		t.Fatalf("PING that waited from before the function: %v", err)
	}
	if err := k.FunctionKill(ctx).Err(); err != nil {
		t.Fatalf("FUNCTION KILL: %v", err)
	}
}
