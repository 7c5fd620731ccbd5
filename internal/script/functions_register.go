package script

import (
	lua "github.com/yuin/gopher-lua"
)

// libraryAPI returns the globals a library's code sees while it loads:
// only a redis table of register_function, log and the version and log
// level fields. Reading anything else, there or in the redis table, fails
// as reading an undefined global does.
func (v *vm) libraryAPI() *lua.LTable {
	L := v.L
	r := L.NewTable()
	r.RawSetString("register_function", L.NewFunction(v.registerFunction))
	r.RawSetString("log", L.NewFunction(v.log))
	for name, n := range map[string]int{
		"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice, "LOG_WARNING": logWarning,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		r.RawSetString(name, lua.LNumber(n))
	}
	r.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	api := L.NewTable()
	api.RawSetString("redis", v.readOnly(r, v.strictIndex(r)))
	return api
}

// strictIndex is an __index for t that fails for a missing field as
// reading an undefined global does.
func (v *vm) strictIndex(t *lua.LTable) *lua.LFunction {
	return v.L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		val := t.RawGet(k)
		if val == lua.LNil {
			L.RaiseError("Script attempted to access nonexistent global variable '%s'", lua.LVAsString(k))
		}
		L.Push(val)
		return 1
	})
}

// registerFunction is redis.register_function(name, callback) and
// redis.register_function{function_name=..., callback=..., flags={...},
// description=...}, reachable only while a library loads.
func (v *vm) registerFunction(L *lua.LState) int {
	if v.loading == nil {
		return v.raise(L, v.errorTable("redis.register_function can only be called on FUNCTION LOAD command"))
	}
	var f function
	var msg string
	switch L.GetTop() {
	case 1:
		msg = v.namedRegisterArgs(L, &f)
	case 2:
		msg = positionalRegisterArgs(L, &f)
	default:
		msg = "wrong number of arguments to redis.register_function"
	}
	if msg == "" {
		lib := v.loading.lib
		switch {
		case !validName(f.info.Name):
			msg = errLibraryName[len("ERR "):]
		case lib.fns[f.info.Name] != nil:
			msg = "Function already exists in the library"
		default:
			f.lib, f.vm = lib, v
			lib.fns[f.info.Name] = &f
			return 0
		}
	}
	return v.raise(L, v.errorTable(msg))
}

// luaString returns a string or number argument as a string.
func luaString(val lua.LValue) (string, bool) {
	switch s := val.(type) {
	case lua.LString:
		return string(s), true
	case lua.LNumber:
		return s.String(), true
	}
	return "", false
}

func positionalRegisterArgs(L *lua.LState, f *function) string {
	name, ok := luaString(L.Get(1))
	if !ok {
		return "first argument to redis.register_function must be a string"
	}
	fn, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		return "second argument to redis.register_function must be a function"
	}
	f.info.Name, f.fn = name, fn
	return ""
}

func (v *vm) namedRegisterArgs(L *lua.LState, f *function) string {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	}
	named := false
	var msg string
	t.ForEach(func(k, val lua.LValue) {
		if msg != "" {
			return
		}
		key, ok := luaString(k)
		if !ok {
			msg = "named argument key given to redis.register_function is not a string"
			return
		}
		switch lower(key) {
		case "function_name":
			if f.info.Name, ok = luaString(val); !ok {
				msg = "function_name argument given to redis.register_function must be a string"
			}
			named = ok
		case "description":
			if f.info.Description, ok = luaString(val); !ok {
				msg = "description argument given to redis.register_function must be a string"
			}
			f.info.HasDescription = ok
		case "callback":
			if f.fn, ok = val.(*lua.LFunction); !ok {
				msg = "callback argument given to redis.register_function must be a function"
			}
		case "flags":
			ft, ok := val.(*lua.LTable)
			if !ok {
				msg = "flags argument to redis.register_function must be a table representing function flags"
				return
			}
			for i := 1; ; i++ {
				e := ft.RawGetInt(i)
				if e == lua.LNil {
					break
				}
				name, ok := luaString(e)
				flag, known := flagNamed(name)
				if !ok || !known {
					msg = "unknown flag given"
					return
				}
				f.info.Flags |= flag
			}
		default:
			msg = "unknown argument given to redis.register_function"
		}
	})
	switch {
	case msg != "":
		return msg
	case !named:
		return "redis.register_function must get a function name argument"
	case f.fn == nil:
		return "redis.register_function must get a callback argument"
	}
	return ""
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
