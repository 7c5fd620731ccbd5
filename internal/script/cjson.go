package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// cjsonError is an error of cjson.encode, in lua-cjson's words.
type cjsonError string

func (e cjsonError) Error() string { return string(e) }

// maxJSONDepth is lua-cjson's default nesting limit.
const maxJSONDepth = 1000

// cjsonConfig is what cjson's configuration functions set. It lasts for
// one script: every script starts with lua-cjson's defaults.
type cjsonConfig struct {
	encodeMaxDepth, decodeMaxDepth int
	invalidNumbers                 string // "off", "on" (nan, inf) or "null"
}

var cjsonDefaults = cjsonConfig{encodeMaxDepth: maxJSONDepth, decodeMaxDepth: maxJSONDepth, invalidNumbers: "off"}

// cjsonLib is lua-cjson's encode and decode as Redis loads it: a table
// whose keys are exactly 1..n is an array (an empty table an object),
// numbers are written with 14 significant digits, and JSON null decodes
// to cjson.null. encode_max_depth, decode_max_depth,
// encode_invalid_numbers and encode_keep_buffer set and return options.
func (v *vm) cjsonLib() *lua.LTable {
	L := v.L
	t := L.NewTable()
	null := L.NewUserData()
	t.RawSetString("null", null)
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			L.RaiseError("bad argument #1 to 'encode' (expected 1 argument)")
		}
		var b bytes.Buffer
		if err := v.encodeJSON(&b, L.Get(1), null, 0); err != nil {
			L.RaiseError("%s", err.Error())
		}
		L.Push(lua.LString(b.String()))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		d := json.NewDecoder(bytes.NewReader([]byte(s)))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			L.RaiseError("Expected value but found invalid token at character 1")
		}
		if d.More() {
			L.RaiseError("Expected the end but found invalid token at character %d", d.InputOffset()+1)
		}
		val, ok := v.fromJSON(x, null, 1)
		if !ok {
			L.RaiseError("Found too many nested data structures (%d) at character 1", v.cjson.decodeMaxDepth+1)
		}
		L.Push(val)
		return 1
	}))
	depth := func(field *int) lua.LGFunction {
		return func(L *lua.LState) int {
			if L.GetTop() >= 1 {
				n := L.CheckInt(1)
				if n < 1 || n > 2147483647 {
					L.ArgError(1, "expected integer between 1 and 2147483647")
				}
				*field = n
			}
			L.Push(lua.LNumber(*field))
			return 1
		}
	}
	t.RawSetString("encode_max_depth", L.NewFunction(depth(&v.cjson.encodeMaxDepth)))
	t.RawSetString("decode_max_depth", L.NewFunction(depth(&v.cjson.decodeMaxDepth)))
	t.RawSetString("encode_invalid_numbers", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			switch a := L.Get(1).(type) {
			case lua.LBool:
				v.cjson.invalidNumbers = "off"
				if a {
					v.cjson.invalidNumbers = "on"
				}
			case lua.LString:
				if a != "on" && a != "off" && a != "null" {
					L.ArgError(1, "invalid option '"+string(a)+"'")
				}
				v.cjson.invalidNumbers = string(a)
			default:
				L.ArgError(1, "invalid option")
			}
		}
		if v.cjson.invalidNumbers == "null" {
			L.Push(lua.LString("null"))
		} else {
			L.Push(lua.LBool(v.cjson.invalidNumbers == "on"))
		}
		return 1
	}))
	t.RawSetString("encode_keep_buffer", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	}))
	return t
}

func (v *vm) encodeJSON(b *bytes.Buffer, lv lua.LValue, null *lua.LUserData, depth int) error {
	switch x := lv.(type) {
	case *lua.LNilType:
		b.WriteString("null")
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(x)))
	case lua.LNumber:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			switch v.cjson.invalidNumbers {
			case "off":
				return cjsonError("Cannot serialise number: must not be NaN or Inf")
			case "null":
				b.WriteString("null")
			case "on":
				switch {
				case math.IsNaN(f):
					b.WriteString("nan")
				case f > 0:
					b.WriteString("inf")
				default:
					b.WriteString("-inf")
				}
			}
			return nil
		}
		b.WriteString(strconv.FormatFloat(f, 'g', 14, 64))
	case lua.LString:
		writeJSONString(b, string(x))
	case *lua.LUserData:
		if x != null {
			return cjsonError("Cannot serialise userdata: type not supported")
		}
		b.WriteString("null")
	case *lua.LTable:
		if depth >= v.cjson.encodeMaxDepth {
			return cjsonError(fmt.Sprintf("Cannot serialise, excessive nesting (%d)", depth+1))
		}
		return v.encodeTable(b, x, null, depth+1)
	default:
		return cjsonError(fmt.Sprintf("Cannot serialise %s: type not supported", lv.Type().String()))
	}
	return nil
}

func (v *vm) encodeTable(b *bytes.Buffer, t *lua.LTable, null *lua.LUserData, depth int) error {
	n, maxKey, array := 0, 0, true
	var keyErr error
	forEach(t, func(k, _ lua.LValue) {
		n++
		switch kk := k.(type) {
		case lua.LNumber:
			if f := float64(kk); f >= 1 && f == math.Floor(f) {
				maxKey = max(maxKey, int(f))
				return
			}
			array = false
		case lua.LString:
			array = false
		default:
			keyErr = cjsonError(fmt.Sprintf("Cannot serialise %s: table key must be a number or string", k.Type().String()))
		}
	})
	if keyErr != nil {
		return keyErr
	}
	if array && n > 0 && maxKey > n*2 && maxKey > 10 {
		return cjsonError("Cannot serialise table: excessively sparse array")
	}
	if array && n > 0 {
		b.WriteByte('[')
		for i := 1; i <= maxKey; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			if err := v.encodeJSON(b, t.RawGetInt(i), null, depth); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	type field struct {
		key string
		val lua.LValue
	}
	var fields []field
	forEach(t, func(k, val lua.LValue) {
		fields = append(fields, field{lua.LVAsString(k), val})
	})
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, f.key)
		b.WriteByte(':')
		if err := v.encodeJSON(b, f.val, null, depth); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeJSONString escapes as lua-cjson does: quotes, backslashes, '/' and
// control characters; other bytes pass through.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// fromJSON converts a decoded JSON value at nesting depth, reporting
// false past decode_max_depth.
func (v *vm) fromJSON(x any, null *lua.LUserData, depth int) (lua.LValue, bool) {
	L := v.L
	switch y := x.(type) {
	case nil:
		return null, true
	case bool:
		return lua.LBool(y), true
	case json.Number:
		f, _ := strconv.ParseFloat(string(y), 64)
		return lua.LNumber(f), true
	case string:
		return lua.LString(y), true
	case []any:
		if depth > v.cjson.decodeMaxDepth {
			return nil, false
		}
		t := L.CreateTable(len(y), 0)
		for i, e := range y {
			val, ok := v.fromJSON(e, null, depth+1)
			if !ok {
				return nil, false
			}
			t.RawSetInt(i+1, val)
		}
		return t, true
	case map[string]any:
		if depth > v.cjson.decodeMaxDepth {
			return nil, false
		}
		t := L.CreateTable(0, len(y))
		for k, e := range y {
			val, ok := v.fromJSON(e, null, depth+1)
			if !ok {
				return nil, false
			}
			t.RawSetString(k, val)
		}
		return t, true
	}
	return lua.LNil, true
}
