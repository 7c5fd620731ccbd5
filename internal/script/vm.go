package script

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"math/rand"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// vm is one Lua state with Redis's libraries and sandbox, running one
// script at a time.
type vm struct {
	e       *Engine
	L       *lua.LState
	base    *lua.LTable // the real globals, reachable only through globals
	globals *lua.LTable // the read-only view scripts see as _G
	// protected are the read-only views (the globals and the libraries),
	// which rawset refuses too.
	protected map[*lua.LTable]bool
	// baseSetmetatable is Lua's own setmetatable, which setmetatable
	// calls for tables that are not read-only views.
	baseSetmetatable lua.LGFunction
	// basePcall is Lua's own pcall, which pcall wraps.
	basePcall lua.LGFunction
	// baseTostring is Lua's own tostring, which tostring calls for
	// anything but a number.
	baseTostring lua.LGFunction
	// baseError is Lua's own error, which error calls after noting the
	// value it raises and the script's line (raised, raisedLine), so that
	// an error without a position in its message still names its line.
	baseError  lua.LGFunction
	raised     lua.LValue
	raisedLine int
	// baseFormat is Lua's own string.format, which string.format calls
	// once the numbers its %s and %q take are written as Lua 5.1 writes
	// them.
	baseFormat lua.LGFunction

	// functions is set for the state that runs the function libraries
	// (FUNCTION LOAD, FCALL): its globals hold no KEYS or ARGV (a
	// function gets them as arguments), and while a library loads they
	// are only loadAPI.
	functions bool
	loadAPI   *lua.LTable
	loading   *loadState

	// state of the running script: sha names it in error replies (the
	// function's name for FCALL), chunk is its chunk name.
	sha        string
	chunk      string
	host       Host
	noWrites   bool
	proto      int
	keys, argv *lua.LTable
	cjson      cjsonConfig
	// rng is math.random's generator, which lasts from one script to
	// the next as Redis 7.0's does (consecutive scripts draw different
	// numbers; math.randomseed reseeds it for the scripts after too); nil
	// until a script first draws from it, then seeded at random.
	rng      *rand.Rand
	panicked any
	// broken is set when the interpreter itself panicked: the state is
	// not reused.
	broken bool
}

// Redis's log levels for redis.log.
const (
	logDebug = iota
	logVerbose
	logNotice
	logWarning
)

// Redis's replication flags for redis.set_repl, accepted and ignored.
const (
	replNone    = 0
	replAOF     = 1
	replReplica = 2
	replAll     = 3
)

// The version scripts see as redis.REDIS_VERSION.
const (
	redisVersion    = "7.0.15"
	redisVersionNum = 0x07000f
)

func newVM(e *Engine, functions bool) *vm {
	// The registry (Lua's value stack) starts small and grows to what
	// Lua's C stack limit lets Redis's scripts pass: unpack of 8,000
	// values, as many command arguments.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024 * 16, RegistryMaxSize: 1024 * 256, RegistryGrowStep: 1024})
	v := &vm{e: e, L: L, protected: make(map[*lua.LTable]bool), functions: functions, chunk: chunkName}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	base := L.G.Global
	v.base = base
	// What Redis removes or never loads: files, modules, printing.
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "module", "require"} {
		base.RawSetString(name, lua.LNil)
	}
	base.RawSetString("rawset", L.NewFunction(v.rawset))
	if m, ok := base.RawGetString("math").(*lua.LTable); ok {
		// Lua's math.huge is HUGE_VAL, infinity (the interpreter's is the
		// largest finite number).
		m.RawSetString("huge", lua.LNumber(math.Inf(1)))
		m.RawSetString("random", L.NewFunction(v.random))
		m.RawSetString("randomseed", L.NewFunction(v.randomseed))
	}
	if f, ok := base.RawGetString("setmetatable").(*lua.LFunction); ok && f.IsG {
		v.baseSetmetatable = f.GFunction
		base.RawSetString("setmetatable", L.NewFunction(v.setmetatable))
	}
	if f, ok := base.RawGetString("tostring").(*lua.LFunction); ok && f.IsG {
		v.baseTostring = f.GFunction
		base.RawSetString("tostring", L.NewFunction(v.tostring))
	}
	if f, ok := base.RawGetString("error").(*lua.LFunction); ok && f.IsG {
		v.baseError = f.GFunction
		base.RawSetString("error", L.NewFunction(v.raiseError))
	}
	if f, ok := base.RawGetString("pcall").(*lua.LFunction); ok && f.IsG {
		v.basePcall = f.GFunction
		base.RawSetString("pcall", L.NewFunction(v.pcall))
	}
	if str, ok := base.RawGetString("string").(*lua.LTable); ok {
		str.RawSetString("rep", L.NewFunction(stringRep))
		if f, ok := str.RawGetString("format").(*lua.LFunction); ok && f.IsG {
			v.baseFormat = f.GFunction
			str.RawSetString("format", L.NewFunction(v.stringFormat))
		}
		str.RawSetString("dump", L.NewFunction(stringDump))
	}
	// Calling nil fails with Lua 5.1's words instead of gopher-lua's
	// "attempt to call a non-function object".
	nilMeta := L.NewTable()
	nilMeta.RawSetString("__call", L.NewFunction(callNil))
	nilMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(lua.LNil, nilMeta)
	base.RawSetString("redis", v.redisLib())
	base.RawSetString("cjson", v.cjsonLib())
	base.RawSetString("bit", v.bitLib())
	base.RawSetString("cmsgpack", v.cmsgpackLib())
	base.RawSetString("struct", v.structLib())
	for _, name := range []string{"string", "table", "math", "coroutine", "redis", "cjson", "bit", "cmsgpack", "struct"} {
		if t, ok := base.RawGetString(name).(*lua.LTable); ok {
			base.RawSetString(name, v.readOnly(t, nil))
		}
	}
	// Strings' methods come from the read-only string library, and their
	// metatable is seen through a read-only view.
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		mt.RawSetString("__index", base.RawGetString("string"))
		mtView := v.readOnly(mt, nil)
		mt.RawSetString("__metatable", mtView)
	}
	if functions {
		v.loadAPI = v.libraryAPI()
	}
	v.globals = v.readOnly(base, L.NewFunction(v.globalIndex))
	base.RawSetString("_G", v.globals)
	L.Env = v.globals
	return v
}

// readOnly returns a view of t that refuses new fields; index, when not
// nil, replaces t as the view's __index.
func (v *vm) readOnly(t *lua.LTable, index lua.LValue) *lua.LTable {
	L := v.L
	view := L.NewTable()
	mt := L.NewTable()
	if index == nil {
		index = t
	}
	mt.RawSetString("__index", index)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	// getmetatable(view) gives a read-only view of the metatable, so that
	// neither can be changed.
	mtView := L.NewTable()
	mtMeta := L.NewTable()
	mtMeta.RawSetString("__index", mt)
	mtMeta.RawSetString("__newindex", mt.RawGetString("__newindex"))
	mtMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(mtView, mtMeta)
	v.protected[mtView] = true
	mt.RawSetString("__metatable", mtView)
	L.SetMetatable(view, mt)
	v.protected[view] = true
	return view
}

// setmetatable is Lua's setmetatable, refusing the read-only views as
// Redis refuses its read-only tables.
func (v *vm) setmetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	if v.protected[t] {
		L.RaiseError("Attempt to modify a readonly table")
	}
	return v.baseSetmetatable(L)
}

// globalIndex reads a global: KEYS and ARGV of the running script, the
// libraries and builtins, and an error for any other name.
func (v *vm) globalIndex(L *lua.LState) int {
	k := L.Get(2)
	if v.loading != nil {
		val := v.loadAPI.RawGet(k)
		if val == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", lua.LVAsString(k))
		}
		L.Push(val)
		return 1
	}
	if s, ok := k.(lua.LString); ok && !v.functions {
		switch s {
		case "KEYS":
			L.Push(v.keys)
			return 1
		case "ARGV":
			L.Push(v.argv)
			return 1
		}
	}
	val := v.base.RawGet(k)
	if val == lua.LNil {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", lua.LVAsString(k))
	}
	L.Push(val)
	return 1
}

// maxStringRep bounds string.rep's result, as proto-max-bulk-len bounds
// a string Redis stores: one call cannot ask for more memory than exists.
const maxStringRep = 512 << 20

// stringRep is Lua's string.rep(s, n), refusing a result over
// maxStringRep with Lua 5.2's words.
func stringRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > maxStringRep/len(s) {
		L.RaiseError("resulting string too large")
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// callNil raises Lua 5.1's error for calling nil: "attempt to call
// field 'NAME' (a nil value)", local or upvalue for a variable of the
// calling function, or "attempt to call a nil value" when the call has
// no name.
func callNil(L *lua.LState) int {
	name, kind := "", "field"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil {
			name = dbg.Name
		}
	}
	if caller, ok := L.GetStack(1); ok && name != "" {
		for i := 1; ; i++ {
			n, _ := L.GetLocal(caller, i)
			if n == "" {
				break
			}
			if n == name {
				kind = "local"
			}
		}
		if fn, ok := L.GetInfo("f", caller, lua.LNil); ok == nil && kind == "field" {
			if f, isFn := fn.(*lua.LFunction); isFn && f.Proto != nil {
				for _, u := range f.Proto.DbgUpvalues {
					if u == name {
						kind = "upvalue"
					}
				}
			}
		}
	}
	if name == "" || name == "?" || strings.ContainsAny(name, "<(") {
		L.RaiseError("attempt to call a nil value")
	}
	L.RaiseError("attempt to call %s '%s' (a nil value)", kind, name)
	return 0
}

// stringDump is string.dump(f): Lua 5.1's binary chunk header only, since
// the interpreter has no bytecode format; loadstring refuses it, as
// Redis's loadstring refuses every binary chunk.
func stringDump(L *lua.LState) int {
	L.CheckFunction(1)
	L.Push(lua.LString("\x1bLuaQ"))
	return 1
}

// random is Lua 5.1's math.random (its bounds may be numeric strings) on
// the vm's generator: after math.randomseed(n) a script draws the same
// numbers for the same n, whatever ran before.
func (v *vm) random(L *lua.LState) int {
	if v.rng == nil {
		v.rng = rand.New(rand.NewSource(rand.Int63()))
	}
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(v.rng.Float64()))
	case 1:
		m := int64(L.CheckNumber(1))
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(1 + v.rng.Int63n(m)))
	case 2:
		lo, hi := int64(L.CheckNumber(1)), int64(L.CheckNumber(2))
		if lo > hi {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(lo + v.rng.Int63n(hi-lo+1)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// randomseed is math.randomseed(n): n a number or a string that reads as
// one, as Lua's luaL_checkint takes it.
func (v *vm) randomseed(L *lua.LState) int {
	v.rng = rand.New(rand.NewSource(int64(structNumber(L, 1, "randomseed"))))
	return 0
}

// rawset is Lua's rawset, refusing the read-only views.
func (v *vm) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	if v.protected[t] {
		L.RaiseError("Attempt to modify a readonly table")
	}
	t.RawSet(L.CheckAny(2), L.CheckAny(3))
	L.SetTop(1)
	return 1
}

// run runs a compiled script and returns its reply, or the value of a
// panic of a command it called.
func (v *vm) run(ctx context.Context, sha string, p *lua.FunctionProto, noWrites bool, keys, args [][]byte, h Host) (Reply, any) {
	fn := v.L.NewFunctionFromProto(p)
	fn.Env = v.globals
	return v.invoke(ctx, sha, fn, false, noWrites, keys, args, h)
}

// invoke calls fn, a script's chunk (KEYS and ARGV as globals) or a
// function (withArgs: KEYS and ARGV as its two arguments), named name in
// error replies, and returns its reply, or the value of a panic of a
// command it called.
func (v *vm) invoke(ctx context.Context, name string, fn *lua.LFunction, withArgs, noWrites bool, keys, args [][]byte, h Host) (Reply, any) {
	L := v.L
	L.SetContext(ctx)
	v.sha, v.host, v.noWrites, v.proto, v.panicked = name, h, noWrites, 2, nil
	v.cjson = cjsonDefaults
	v.raised, v.raisedLine = nil, 0
	v.keys, v.argv = v.strings(keys), v.strings(args)
	defer func() {
		v.host, v.keys, v.argv, v.panicked, v.raised = nil, nil, nil, nil, nil
		L.RemoveContext()
		L.SetTop(0)
	}()
	L.Push(fn)
	nargs := 0
	if withArgs {
		L.Push(v.keys)
		L.Push(v.argv)
		nargs = 2
	}
	err := L.PCall(nargs, 1, nil)
	if v.panicked != nil {
		return Reply{}, v.panicked
	}
	if ctx.Err() != nil {
		return ErrorReply(Killed), nil
	}
	if err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			v.broken = true
		}
		return v.errorReply(err), nil
	}
	return v.toReply(L.Get(-1), 0), nil
}

func (v *vm) strings(list [][]byte) *lua.LTable {
	t := v.L.CreateTable(len(list), 0)
	for i, b := range list {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// errorReply words a script's failure as Redis does: the error's message,
// then where the script failed.
func (v *vm) errorReply(err error) Reply {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
		obj = ae.Object
	}
	var msg string
	line := 0
	switch o := obj.(type) {
	case *lua.LTable:
		s, ok := o.RawGetString("err").(lua.LString)
		if !ok {
			return ErrorReply("ERR Error running script " + v.sha + ", execution failure")
		}
		msg = string(s)
		if n, ok := o.RawGetString("line").(lua.LNumber); ok {
			line = int(n)
		}
	case lua.LString:
		msg = "ERR " + string(o)
		line = lineOf(string(o), v.chunk)
	default:
		msg = "ERR " + obj.String()
	}
	if line == 0 && v.raised != nil && obj == v.raised {
		// error(value, 0) or error(table): the line error was called on.
		line = v.raisedLine
	}
	if line > 0 {
		msg += fmt.Sprintf(" script: %s, on @%s:%d.", v.sha, v.chunk, line)
	}
	return ErrorReply(msg)
}

// lineOf returns the line of a Lua error message "CHUNK:LINE: ...", 0
// when it names none.
func lineOf(msg, chunk string) int {
	rest, ok := strings.CutPrefix(msg, chunk+":")
	if !ok {
		return 0
	}
	n, _, ok := strings.Cut(rest, ":")
	if !ok {
		return 0
	}
	line, err := strconv.Atoi(n)
	if err != nil {
		return 0
	}
	return line
}

// line returns the line of the script running the current Go function, 0
// when none is found.
func (v *vm) line(L *lua.LState) int {
	for lvl := 1; lvl < 16; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.CurrentLine > 0 && strings.Contains(dbg.Source, v.chunk) {
			return dbg.CurrentLine
		}
	}
	return 0
}

// errorTable is Redis's error object {err="CODE message"}: a message
// starting with '-' carries its code, any other gets ERR.
func (v *vm) errorTable(msg string) *lua.LTable {
	t := v.L.NewTable()
	t.RawSetString("err", lua.LString(errorText(msg)))
	return t
}

func errorText(msg string) string {
	code := "ERR"
	if rest, ok := strings.CutPrefix(msg, "-"); ok {
		if c, m, ok := strings.Cut(rest, " "); ok {
			code, msg = c, m
		} else {
			msg = rest
		}
	}
	return code + " " + strings.TrimRight(msg, "\r\n")
}

// raise raises t as the script's error, with where it was raised.
func (v *vm) raise(L *lua.LState, t *lua.LTable) int {
	if line := v.line(L); line > 0 {
		t.RawSetString("source", lua.LString("@"+v.chunk))
		t.RawSetString("line", lua.LNumber(line))
	}
	L.Error(t, 0)
	return 0
}

// raiseError is Lua's error, noting what it raises and from which line.
func (v *vm) raiseError(L *lua.LState) int {
	v.raised, v.raisedLine = L.Get(1), v.line(L)
	return v.baseError(L)
}

// tostring is Lua's tostring, with numbers written as Lua 5.1 writes
// them (C's %.14g: 0.1+0.2 is "0.3", 1e15 is "1e+15", infinity "inf"),
// where the interpreter writes the shortest exact form.
func (v *vm) tostring(L *lua.LState) int {
	if n, ok := L.Get(1).(lua.LNumber); ok && L.GetTop() >= 1 {
		L.Push(lua.LString(luaNumberString(float64(n))))
		return 1
	}
	return v.baseTostring(L)
}

// stringFormat is Lua's string.format, a number that %s or %q writes
// being written as tostring writes it.
func (v *vm) stringFormat(L *lua.LState) int {
	format := L.CheckString(1)
	arg := 1
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		for i < len(format) && strings.IndexByte("-+ #0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			break
		}
		arg++
		if c := format[i]; c == 's' || c == 'q' {
			if n, ok := L.Get(arg).(lua.LNumber); ok {
				L.Replace(arg, lua.LString(luaNumberString(float64(n))))
			}
		}
	}
	return v.baseFormat(L)
}

// luaNumberString formats f as C's printf("%.14g") does on Linux, which is
// how Lua 5.1 turns a number into a string.
func luaNumberString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// pcall is Lua's pcall as Redis gives it to scripts: an error object
// that is a table with an err field (what redis.call raises, or
// error({err=...})) is caught as that field's value, the message alone,
// as scripts written for Redis before 7.0 expect; any other error object
// is caught as it is.
func (v *vm) pcall(L *lua.LState) int {
	n := v.basePcall(L)
	if n == 2 && L.Get(-2) == lua.LFalse {
		if t, ok := L.Get(-1).(*lua.LTable); ok {
			switch msg := t.RawGetString("err").(type) {
			case lua.LString, lua.LNumber:
				L.Replace(-1, msg)
			}
		}
	}
	return n
}

// fail answers a redis.* function's refusal: raised, or returned as the
// error object (redis.pcall).
func (v *vm) fail(L *lua.LState, raise bool, msg string) int {
	t := v.errorTable(msg)
	if raise {
		return v.raise(L, t)
	}
	L.Push(t)
	return 1
}

func (v *vm) redisLib() *lua.LTable {
	L := v.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               v.call(true),
		"pcall":              v.call(false),
		"error_reply":        v.errorReplyFn,
		"status_reply":       v.statusReplyFn,
		"sha1hex":            v.sha1hex,
		"log":                v.log,
		"setresp":            v.setresp,
		"set_repl":           v.setRepl,
		"acl_check_cmd":      v.aclCheckCmd,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, n := range map[string]int{
		"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice, "LOG_WARNING": logWarning,
		"REPL_NONE": replNone, "REPL_AOF": replAOF, "REPL_SLAVE": replReplica, "REPL_REPLICA": replReplica, "REPL_ALL": replAll,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		t.RawSetString(name, lua.LNumber(n))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	return t
}

// call is redis.call (raise) and redis.pcall.
func (v *vm) call(raise bool) lua.LGFunction {
	return func(L *lua.LState) int {
		args, msg := luaCommandArgs(L)
		if msg != "" {
			return v.fail(L, raise, msg)
		}
		if v.host == nil {
			return v.fail(L, raise, "redis.call/pcall can only be called inside a script invocation")
		}
		r, ok := v.hostCall(args)
		if !ok {
			L.RaiseError("internal error in a command called from the script")
			return 0
		}
		if r.Kind == Error {
			t := L.NewTable()
			t.RawSetString("err", lua.LString(strings.TrimRight(string(r.Str), "\r\n")))
			if raise {
				return v.raise(L, t)
			}
			L.Push(t)
			return 1
		}
		L.Push(v.toLua(r))
		return 1
	}
}

// aclCheckCmd is redis.acl_check_cmd(cmd, args...): whether the script's
// user may run the command; an unknown command raises an error.
func (v *vm) aclCheckCmd(L *lua.LState) int {
	if v.host == nil {
		return v.fail(L, true, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	args, msg := luaCommandArgs(L)
	if msg != "" {
		return v.fail(L, true, msg)
	}
	allowed, found := v.host.CheckACL(args)
	if !found {
		return v.fail(L, true, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(allowed))
	return 1
}

// luaCommandArgs converts the arguments of a redis.* call naming a
// command, or returns the refusal's message.
func luaCommandArgs(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	args := make([][]byte, n)
	for i := 1; i <= n; i++ {
		switch a := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = []byte(a)
		case lua.LNumber:
			args[i-1] = strconv.AppendFloat(nil, float64(a), 'g', 17, 64)
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
	}
	return args, ""
}

// hostCall runs a command, keeping a panic to re-raise once the script is
// unwound.
func (v *vm) hostCall(args [][]byte) (r Reply, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			v.panicked = p
			ok = false
		}
	}()
	return v.host.Call(args, v.proto, v.noWrites), true
}

func (v *vm) errorReplyFn(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString && L.Get(1).Type() != lua.LTNumber {
		L.Push(v.errorTable("wrong number or type of arguments"))
		return 1
	}
	msg := L.ToString(1)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(v.errorTable(msg))
	return 1
}

func (v *vm) statusReplyFn(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString && L.Get(1).Type() != lua.LTNumber {
		L.Push(v.errorTable("wrong number or type of arguments"))
		return 1
	}
	t := L.NewTable()
	t.RawSetString("ok", lua.LString(L.ToString(1)))
	L.Push(t)
	return 1
}

func (v *vm) sha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		return v.raise(L, v.errorTable("wrong number of arguments"))
	}
	h := sha1.Sum([]byte(L.ToString(1)))
	L.Push(lua.LString(hex.EncodeToString(h[:])))
	return 1
}

func (v *vm) log(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		return v.raise(L, v.errorTable("redis.log() requires two arguments or more."))
	}
	lv, ok := L.Get(1).(lua.LNumber)
	if !ok {
		if s, isStr := L.Get(1).(lua.LString); isStr {
			f, err := strconv.ParseFloat(strings.TrimSpace(string(s)), 64)
			lv, ok = lua.LNumber(f), err == nil
		}
	}
	if !ok {
		return v.raise(L, v.errorTable("First argument must be a number (log level)."))
	}
	level := int(lv)
	if level < logDebug || level > logWarning {
		return v.raise(L, v.errorTable("Invalid debug level."))
	}
	var b strings.Builder
	for i := 2; i <= n; i++ {
		switch a := L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			if i != 2 {
				b.WriteByte(' ')
			}
			b.WriteString(a.String())
		}
	}
	sl := slog.LevelDebug
	switch level {
	case logNotice:
		sl = slog.LevelInfo
	case logWarning:
		sl = slog.LevelWarn
	}
	v.e.log.Log(context.Background(), sl, b.String(), "source", "script")
	return 0
}

func (v *vm) setresp(L *lua.LState) int {
	if L.GetTop() != 1 {
		return v.raise(L, v.errorTable("redis.setresp() requires one argument."))
	}
	n := L.ToInt(1)
	if n != 2 && n != 3 {
		return v.raise(L, v.errorTable("RESP version must be 2 or 3."))
	}
	v.proto = n
	return 0
}

func (v *vm) setRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		return v.raise(L, v.errorTable("redis.set_repl() requires two arguments."))
	}
	if f := L.ToInt(1); f < replNone || f > replAll || L.Get(1).Type() != lua.LTNumber {
		return v.raise(L, v.errorTable("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."))
	}
	return 0
}
