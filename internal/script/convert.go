package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxDepth bounds the nesting of a script's reply, as Lua's stack limit
// bounds Redis's conversion.
const maxDepth = 200

var crlfToSpaces = strings.NewReplacer("\r", " ", "\n", " ")

// toReply converts a script's return value to RESP as Redis does: a number
// is an integer (truncated), a string a bulk string, true 1 (RESP3 true),
// false nil (RESP3 false), a table with err an error, with ok a status,
// with double, big_number, map, set or verbatim_string those RESP3 types,
// any other table an array of its elements 1, 2, ... up to the first nil;
// anything else is nil.
func (v *vm) toReply(lv lua.LValue, depth int) Reply {
	switch x := lv.(type) {
	case lua.LString:
		return Reply{Kind: Bulk, Str: []byte(x)}
	case lua.LNumber:
		return Reply{Kind: Int, Int: int64(float64(x))}
	case lua.LBool:
		if v.proto == 2 {
			if x {
				return Reply{Kind: Int, Int: 1}
			}
			return Reply{Kind: Nil}
		}
		return Reply{Kind: Bool, Bool: bool(x)}
	case *lua.LTable:
		if depth >= maxDepth {
			return ErrorReply("ERR reached lua stack limit")
		}
		return v.tableReply(x, depth)
	}
	return Reply{Kind: Nil}
}

func (v *vm) tableReply(t *lua.LTable, depth int) Reply {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		return Reply{Kind: Error, Str: []byte(s)}
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		return Reply{Kind: Status, Str: []byte(crlfToSpaces.Replace(string(s)))}
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		return Reply{Kind: Double, Float: float64(n)}
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		return Reply{Kind: BigNumber, Str: []byte(crlfToSpaces.Replace(string(s)))}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		r := Reply{Kind: Map}
		forEach(m, func(k, val lua.LValue) {
			r.Elems = append(r.Elems, v.toReply(k, depth+1), v.toReply(val, depth+1))
		})
		return r
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		r := Reply{Kind: Set}
		forEach(s, func(k, _ lua.LValue) {
			r.Elems = append(r.Elems, v.toReply(k, depth+1))
		})
		return r
	}
	if vs, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, okf := vs.RawGetString("format").(lua.LString)
		s, oks := vs.RawGetString("string").(lua.LString)
		if okf && oks {
			return Reply{Kind: Verbatim, Format: string(f), Str: []byte(s)}
		}
	}
	r := Reply{Kind: Array, Elems: []Reply{}}
	for i := 1; ; i++ {
		e := t.RawGetInt(i)
		if e == lua.LNil {
			break
		}
		r.Elems = append(r.Elems, v.toReply(e, depth+1))
	}
	return r
}

// toLua converts a command's reply to the value redis.call returns, as
// Redis does: an integer is a number, a bulk string a string, nil false
// (nil in RESP3), an array a table, a status {ok=...}, an error
// {err=...}; the RESP3 types (setresp(3)) are a map {map={...}}, a set
// {set={member=true}}, a double {double=n}, a boolean, a big number
// {big_number=s} and a verbatim string {verbatim_string={format=,
// string=}}.
func (v *vm) toLua(r Reply) lua.LValue {
	L := v.L
	switch r.Kind {
	case Int:
		return lua.LNumber(r.Int)
	case Bulk:
		return lua.LString(r.Str)
	case Nil, NullArray:
		if v.proto == 2 {
			return lua.LFalse
		}
		return lua.LNil
	case Status:
		return v.field("ok", lua.LString(r.Str))
	case Error:
		return v.field("err", lua.LString(r.Str))
	case Array:
		t := L.CreateTable(len(r.Elems), 0)
		for i, e := range r.Elems {
			t.RawSetInt(i+1, v.toLua(e))
		}
		return t
	case Map:
		m := L.CreateTable(0, len(r.Elems)/2)
		for i := 0; i+1 < len(r.Elems); i += 2 {
			if k := v.toLua(r.Elems[i]); k != lua.LNil {
				m.RawSet(k, v.toLua(r.Elems[i+1]))
			}
		}
		return v.field("map", m)
	case Set:
		s := L.CreateTable(0, len(r.Elems))
		for _, e := range r.Elems {
			if k := v.toLua(e); k != lua.LNil {
				s.RawSet(k, lua.LTrue)
			}
		}
		return v.field("set", s)
	case Double:
		return v.field("double", lua.LNumber(r.Float))
	case Bool:
		return lua.LBool(r.Bool)
	case BigNumber:
		return v.field("big_number", lua.LString(r.Str))
	case Verbatim:
		vs := L.NewTable()
		vs.RawSetString("format", lua.LString(r.Format))
		vs.RawSetString("string", lua.LString(r.Str))
		return v.field("verbatim_string", vs)
	}
	return lua.LFalse
}

func (v *vm) field(name string, val lua.LValue) *lua.LTable {
	t := v.L.CreateTable(0, 1)
	t.RawSetString(name, val)
	return t
}

// forEach calls fn for each pair of t in the order pairs() visits them
// (the array part, then keys in insertion order), not Go's random map
// order, so that a script's replies and encodings are deterministic.
func forEach(t *lua.LTable, fn func(k, v lua.LValue)) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fn(k, v)
	}
}
