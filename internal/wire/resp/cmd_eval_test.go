package resp_test

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func sha1hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestEvalConversions(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("hello", "eval", "return 'hello'", "0"),
		reply(int64(100), "eval", "return 100.5", "0"),
		reply(int64(-3), "eval", "return -3.9", "0"),
		reply(int64(1), "eval", "return true", "0"),
		reply(nil, "eval", "return false", "0"),
		reply(nil, "eval", "return nil", "0"),
		reply("fine", "eval", "return {ok='fine'}", "0"),
		fails("ERR this is an error", "eval", "return {err='ERR this is an error'}", "0"),
		fails("MY_CODE custom msg", "eval", "return redis.error_reply('MY_CODE custom msg')", "0"),
		fails("ERR x", "eval", "return redis.error_reply('x')", "0"),
		reply("OK2", "eval", "return redis.status_reply('OK2')", "0"),
		reply([]any{int64(1), int64(2), int64(3), "ciao", []any{int64(1), int64(2)}}, "eval", "return {1,2,3,'ciao',{1,2}}", "0"),
		reply([]any{int64(1), int64(2)}, "eval", "return {1,2,nil,4}", "0"),
		reply([]any{}, "eval", "return _G", "0"),
		reply([]any{}, "eval", "local a = {}; setmetatable(a,{__index=function() foo() end}) return a", "0"),
		reply([]any{"a", "b", "c", "d"}, "eval", "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}", "2", "a", "b", "c", "d"),
		// RESP -> Lua
		ok("set", "x", "0"),
		reply([]any{"number", int64(1)}, "eval", "local v = redis.call('incr', KEYS[1]) return {type(v), v}", "1", "x"),
		reply([]any{"string", "1"}, "eval", "local v = redis.call('get', KEYS[1]) return {type(v), v}", "1", "x"),
		reply([]any{"boolean", int64(0)}, "eval", "local v = redis.call('get', 'nokey') if v == false then return {type(v), 0} end return 1", "0"),
		reply([]any{"table", "OK"}, "eval", "local v = redis.call('set', 'y', 'z') return {type(v), v['ok']}", "0"),
		reply("WRONGTYPE Operation against a key holding the wrong kind of value", "eval",
			"local v = redis.pcall('lpush', 'y', 'z') return v['err']", "0"),
		reply([]any{"a", "b"}, "eval", "redis.call('rpush', 'l', 'a', 'b') return redis.call('lrange', 'l', 0, -1)", "0"),
		// numbers passed as arguments use %.17g
		reply("0.10000000000000001", "eval", "redis.call('set', 'f', 0.1) return redis.call('get', 'f')", "0"),
		reply("100", "eval", "redis.call('set', 'f', 100) return redis.call('get', 'f')", "0"),
		// library functions
		reply([]any{"da39a3ee5e6b4b0d3255bfef95601890afd80709", "74822d82031af7493c20eefa13bd07ec4fada82f"},
			"eval", "return {redis.sha1hex(''), redis.sha1hex('Pizza & Mandolino')}", "0"),
		reply("7.0.15", "eval", "return redis.REDIS_VERSION", "0"),
		reply(int64(0x07000f), "eval", "return redis.REDIS_VERSION_NUM", "0"),
		reply(int64(1), "eval", "redis.set_repl(redis.REPL_ALL) redis.replicate_commands() return 1", "0"),
		reply(int64(1), "eval", "redis.log(redis.LOG_WARNING, 'hello', 'world') return 1", "0"),
		reply(`{"a":[1,2,3]}`, "eval", "return cjson.encode({a={1,2,3}})", "0"),
		reply([]any{"x", int64(2)}, "eval", "local t = cjson.decode('{\"k\":[\"x\",2]}') return t.k", "0"),
		reply(int64(3), "eval", "return bit.band(7, 3)", "0"),
		reply("000000ff", "eval", "return bit.tohex(255)", "0"),
		reply("HELLO", "eval", "return string.upper('hello')", "0"),
		reply(int64(3), "eval", "local t = {} table.insert(t, 1) table.insert(t, 2) table.insert(t, 3) return #t", "0"),
		reply(int64(4), "eval", "return math.floor(4.7)", "0"),
	})
}

func TestEvalRESP3(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	runSteps(t, e, c, []step{
		reply(int64(1), "hset", "h", "f", "v"),
		reply(map[any]any{"f": "v"}, "eval", "redis.setresp(3) return redis.call('hgetall', 'h')", "0"),
		reply("v", "eval", "redis.setresp(3) return redis.call('hgetall', 'h')['map']['f']", "0"),
		reply(true, "eval", "redis.setresp(3) return redis.call('get', 'nokey') == nil", "0"),
		reply(true, "eval", "redis.setresp(3) return true", "0"),
		reply(false, "eval", "redis.setresp(3) return false", "0"),
		reply(3.5, "eval", "return {double=3.5}", "0"),
		reply(map[any]any{"a": int64(1)}, "eval", "return {map={a=1}}", "0"),
		fails("ERR RESP version must be 2 or 3. script: "+sha1hex("redis.setresp(4)")+", on @user_script:1.", "eval", "redis.setresp(4)", "0"),
	})
}

func TestEvalErrors(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	where := func(body string, line int) string {
		return " script: " + sha1hex(body) + ", on @user_script:" + string(rune('0'+line)) + "."
	}
	unknown := "redis.call('nosuchcommand')"
	arity := "redis.call('get','a','b','c')"
	noscript := "redis.call('multi')"
	wrongtype := "redis.call('set','s','v')\nredis.call('lpush','s','val')"
	global := "return a"
	setGlobal := "a=10"
	runSteps(t, e, c, []step{
		fails("NOSCRIPT No matching script. Please use EVAL.", "evalsha", "ffd632c7d33e571e9f24556ebed26c3479a87130", "0"),
		fails("NOSCRIPT No matching script. Please use EVAL.", "evalsha", "NotValidShaSUM", "0"),
		fails("ERR Number of keys can't be greater than number of args", "eval", "return 1", "2", "a"),
		fails("ERR Number of keys can't be negative", "eval", "return 1", "-12"),
		fails("ERR value is not an integer or out of range", "eval", "return 1", "x"),
		fails("ERR wrong number of arguments for 'eval' command", "eval", "return 1"),
		fails("ERR Unknown Redis command called from script"+where(unknown, 1), "eval", unknown, "0"),
		fails("ERR Wrong number of args calling Redis command from script"+where(arity, 1), "eval", arity, "0"),
		fails("ERR This Redis command is not allowed from script"+where(noscript, 1), "eval", noscript, "0"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value"+where(wrongtype, 2), "eval", wrongtype, "0"),
		fails("ERR user_script:1: Script attempted to access nonexistent global variable 'a'"+where(global, 1), "eval", global, "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where(setGlobal, 1), "eval", setGlobal, "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("redis.call = 1", 1), "eval", "redis.call = 1", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("rawset(_G, 'x', 1)", 1), "eval", "rawset(_G, 'x', 1)", "0"),
		fails("ERR Please specify at least one argument for this redis lib call"+where("return redis.call()", 1), "eval", "return redis.call()", "0"),
		fails("ERR Lua redis lib command arguments must be strings or integers"+where("return redis.call('get', {})", 1), "eval", "return redis.call('get', {})", "0"),
		fails("ERR wrong number of arguments"+where("redis.sha1hex()", 1), "eval", "redis.sha1hex()", "0"),
		reply("ERR Unknown Redis command called from script", "eval", "return redis.pcall('nosuchcommand')['err']", "0"),
		fails("ERR Unknown Redis command called from script", "eval", "return redis.pcall('nosuchcommand')", "0"),
		fails("ERR user_script:1: boom"+where("error('boom')", 1), "eval", "error('boom')", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("string.x = 1", 1), "eval", "string.x = 1", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("getmetatable('').__index = {}", 1), "eval", "getmetatable('').__index = {}", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("getmetatable('').__index.upper = 1", 1), "eval", "getmetatable('').__index.upper = 1", "0"),
		// Redis's "Try trick global protection" cases
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("setmetatable(_G, {})", 1), "eval", "setmetatable(_G, {})", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("local g = getmetatable(_G) g.__index = {}", 1), "eval", "local g = getmetatable(_G) g.__index = {}", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("_G = {}", 1), "eval", "_G = {}", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("cjson.encode = function() return 1 end", 1), "eval", "cjson.encode = function() return 1 end", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("setmetatable(redis, {})", 1), "eval", "setmetatable(redis, {})", "0"),
		reply(int64(1), "eval", "local t = setmetatable({}, {__index = function() return 1 end}) return t.x", "0"),
		reply("ABC", "eval", "return ('abc'):upper()", "0"),
		// setfenv and loadstring stay inside the sandbox, as in Redis
		reply(int64(1), "eval", "return loadstring('return 1')()", "0"),
		fails("ERR user_script:1: Attempt to modify a readonly table"+where("getfenv(0).x = 1", 1), "eval", "getfenv(0).x = 1", "0"),
	})
	// the sandbox: no os, io, require, loadfile, dofile
	for _, name := range []string{"os", "io", "require", "dofile", "loadfile", "module", "print", "debug"} {
		body := "return " + name
		if _, err := c.Do(t.Context(), "eval", body, "0").Result(); err == nil ||
			err.Error() != "ERR user_script:1: Script attempted to access nonexistent global variable '"+name+"'"+where(body, 1) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	_, err := c.Do(t.Context(), "eval", "return (", "0").Result()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR Error compiling script (new function): user_script:1: ") {
		t.Fatalf("compile error = %v", err)
	}
	// a failed call does not undo the script's earlier writes, as in Redis
	_, err = c.Do(t.Context(), "eval", "redis.call('set', 'w', '1') redis.call('nosuch')", "0").Result()
	if err == nil {
		t.Fatal("want error")
	}
	if v, _ := c.Get(t.Context(), "w").Result(); v != "1" {
		t.Fatalf("w = %q", v)
	}
}

func TestEvalSHAAndScriptCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	body := "return redis.call('get',KEYS[1])"
	sha := sha1hex(body)
	runSteps(t, e, c, []step{
		ok("set", "mykey", "myval"),
		reply([]any{int64(0)}, "script", "exists", sha),
		reply("myval", "eval", body, "1", "mykey"),
		reply([]any{int64(1), int64(0)}, "script", "exists", sha, "ffd632c7d33e571e9f24556ebed26c3479a87130"),
		reply("myval", "evalsha", sha, "1", "mykey"),
		reply("myval", "evalsha", strings.ToUpper(sha), "1", "mykey"),
		ok("script", "flush"),
		fails("NOSCRIPT No matching script. Please use EVAL.", "evalsha", sha, "1", "mykey"),
		reply(sha, "script", "load", body),
		reply("myval", "evalsha", sha, "1", "mykey"),
		ok("script", "flush", "async"),
		ok("script", "flush", "sync"),
		fails("ERR SCRIPT FLUSH only support SYNC|ASYNC option", "script", "flush", "x"),
		fails("ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'", "script", "load", "("),
		// read-only scripts
		reply("myval", "eval_ro", body, "1", "mykey"),
		fails("ERR Write commands are not allowed from read-only scripts. script: "+sha1hex("redis.call('del', KEYS[1]);")+", on @user_script:1.",
			"eval_ro", "redis.call('del', KEYS[1]);", "1", "mykey"),
		reply(sha, "script", "load", body),
		reply("myval", "evalsha_ro", sha, "1", "mykey"),
		// Redis 7's shebang
		reply(int64(1), "eval", "#!lua\nreturn 1", "0"),
		reply(int64(1), "eval", "#!lua flags=allow-oom,no-cluster\nreturn 1", "0"),
		fails("ERR Unexpected engine in script shebang: #!not-lua", "eval", "#!not-lua\nreturn 1", "0"),
		fails("ERR Unknown lua shebang option: badger=data", "eval", "#!lua badger=data\nreturn 1", "0"),
		fails("ERR Unexpected flag in script shebang: what?", "eval", "#!lua flags=allow-oom,what?\nreturn 1", "0"),
		fails("ERR Invalid script shebang", "eval", "#!lua", "0"),
		fails("ERR Write commands are not allowed from read-only scripts. script: "+sha1hex("#!lua flags=no-writes\nredis.call('set','x',1)")+", on @user_script:2.",
			"eval", "#!lua flags=no-writes\nredis.call('set','x',1)", "1", "x"),
		reply("myval", "eval", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "mykey"),
		// EVAL inside MULTI/EXEC
		ok("multi"),
		reply("QUEUED", "eval", "return redis.call('incr', KEYS[1])", "1", "counter"),
		reply("QUEUED", "evalsha", sha, "1", "counter"),
		reply([]any{int64(1), "1"}, "exec"),
		// SELECT inside a script does not change the client's database
		reply("b", "eval", "redis.call('select', 1) redis.call('set', 'k', 'b') return redis.call('get', 'k')", "0"),
		reply(nil, "get", "k"),
		// blocking commands Redis allows in scripts do not block there; the
		// others are refused
		reply(nil, "eval", "return redis.pcall('blmpop', 0, 1, 'empty', 'left')", "0"),
		reply(nil, "eval", "return redis.pcall('bzmpop', 0, 1, 'empty', 'min')", "0"),
		reply("ERR This Redis command is not allowed from script", "eval", "return redis.pcall('blpop', 'empty', 0)['err']", "0"),
		reply("ERR This Redis command is not allowed from script", "eval", "return redis.pcall('brpop', 'empty', 0)['err']", "0"),
		reply("ERR This Redis command is not allowed from script", "eval", "return redis.pcall('blmove', 'a', 'b', 'left', 'left', 0)['err']", "0"),
	})
	lines, err := c.Do(t.Context(), "script", "help").StringSlice()
	if err != nil || len(lines) == 0 || !strings.HasPrefix(lines[0], "SCRIPT <subcommand>") {
		t.Fatalf("script help = %v %v", lines, err)
	}
}

// TestEvalPatterns runs the scripts libraries send: a rate limiter's INCR
// and EXPIRE, and Redlock's release.
func TestEvalPatterns(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	limiter := redis.NewScript(`
local n = redis.call('incr', KEYS[1])
if n == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end
return {n, redis.call('pttl', KEYS[1])}`)
	for i := 1; i <= 3; i++ {
		got, err := limiter.Run(ctx, c, []string{"rl"}, 1000).Int64Slice()
		if err != nil || got[0] != int64(i) || got[1] != 1000 {
			t.Fatalf("limiter %d = %v %v", i, got, err)
		}
	}
	e.clock.Advance(1001 * time.Millisecond)
	if got, err := limiter.Run(ctx, c, []string{"rl"}, 1000).Int64Slice(); err != nil || got[0] != 1 {
		t.Fatalf("limiter after window = %v %v", got, err)
	}
	release := redis.NewScript(`if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end`)
	if err := c.Set(ctx, "lock", "token-1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := release.Run(ctx, c, []string{"lock"}, "token-2").Int64(); err != nil || n != 0 {
		t.Fatalf("release with another token = %v %v", n, err)
	}
	if n, err := release.Run(ctx, c, []string{"lock"}, "token-1").Int64(); err != nil || n != 1 {
		t.Fatalf("release = %v %v", n, err)
	}
	if n, _ := c.Exists(ctx, "lock").Result(); n != 0 {
		t.Fatal("lock still held")
	}
}

func TestEvalInfoCountsCachedScripts(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	for _, body := range []string{"return 1", "return 2", "return 1"} {
		if err := c.Eval(ctx, body, nil).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if info := c.Info(ctx, "memory").Val(); !strings.Contains(info, "number_of_cached_scripts:2\r\n") {
		t.Fatalf("info memory = %q", info)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if info := c.Info(ctx, "memory").Val(); !strings.Contains(info, "number_of_cached_scripts:0\r\n") {
		t.Fatalf("info memory after flush = %q", info)
	}
}
