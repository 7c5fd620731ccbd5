package script

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// maxMsgpackNesting is lua-cmsgpack's nesting limit: a table nested
// deeper (a circular one) is packed as nil.
const maxMsgpackNesting = 16

// cmsgpackLib is lua-cmsgpack as Redis loads it: pack(...) packs each
// argument and concatenates them; unpack(s) returns every value packed in
// s; unpack_one(s [, offset]) and unpack_limit(s, limit [, offset]) return
// the offset after what they read (-1 at the end) and then the values.
// A table whose keys are exactly 1..n (the empty table too) is an array,
// any other a map; an integral number is the smallest integer encoding,
// another a float32 when that is exact, else a float64.
func (v *vm) cmsgpackLib() *lua.LTable {
	L := v.L
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			L.ArgError(0, "MessagePack pack needs input.")
		}
		var b []byte
		for i := 1; i <= n; i++ {
			b = packValue(b, L.Get(i), 0)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return v.unpack(L, L.CheckString(1), 0, 0, true)
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		return v.unpack(L, L.CheckString(1), 1, L.OptInt(2, 0), false)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		return v.unpack(L, L.CheckString(1), L.OptInt(2, 0), L.OptInt(3, 0), false)
	}))
	return t
}

func packValue(b []byte, lv lua.LValue, level int) []byte {
	switch x := lv.(type) {
	case lua.LString:
		return packString(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if f == math.Trunc(f) && f >= -9223372036854775808 && f < 9223372036854775808 {
			return packInt(b, int64(f))
		}
		if f32 := float32(f); float64(f32) == f {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f32))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
	case *lua.LTable:
		if level == maxMsgpackNesting {
			return append(b, 0xc0)
		}
		return packTable(b, x, level)
	}
	return append(b, 0xc0)
}

func packInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(int8(n)))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

func packString(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func packHeader(b []byte, n int, fix, h16, h32 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, h16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, h32), uint32(n))
}

func packTable(b []byte, t *lua.LTable, level int) []byte {
	count, maxKey, array := 0, 0, true
	forEach(t, func(k, _ lua.LValue) {
		count++
		n, ok := k.(lua.LNumber)
		if !ok || n <= 0 || float64(n) != math.Trunc(float64(n)) {
			array = false
			return
		}
		maxKey = max(maxKey, int(n))
	})
	if array && maxKey == count {
		b = packHeader(b, count, 0x90, 0xdc, 0xdd)
		for i := 1; i <= count; i++ {
			b = packValue(b, t.RawGetInt(i), level+1)
		}
		return b
	}
	b = packHeader(b, count, 0x80, 0xde, 0xdf)
	forEach(t, func(k, val lua.LValue) {
		b = packValue(b, k, level+1)
		b = packValue(b, val, level+1)
	})
	return b
}

// unpack decodes up to limit values of s from offset (all of them when
// all), pushing them, and for unpack_one and unpack_limit the offset
// after them first.
func (v *vm) unpack(L *lua.LState, s string, limit, offset int, all bool) int {
	if offset < 0 || limit < 0 {
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		L.RaiseError("Start offset %d greater than input length %d.", offset, len(s))
	}
	if all || (limit == 0 && offset == 0) {
		all, limit = true, math.MaxInt
	}
	d := &msgpackDecoder{v: v, b: []byte(s[offset:])}
	var vals []lua.LValue
	for len(d.b) > 0 && len(vals) < limit {
		val, err := d.value(0)
		if err != "" {
			L.RaiseError("%s", err)
		}
		vals = append(vals, val)
	}
	if !all {
		next := len(s) - len(d.b)
		if len(d.b) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, val := range vals {
		L.Push(val)
	}
	if all {
		return len(vals)
	}
	return len(vals) + 1
}

type msgpackDecoder struct {
	v *vm
	b []byte
}

const (
	errMissing = "Missing bytes in input."
	errBadData = "Bad data format in input."
)

// take returns the next n bytes.
func (d *msgpackDecoder) take(n int) ([]byte, bool) {
	if n < 0 || len(d.b) < n {
		return nil, false
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out, true
}

func (d *msgpackDecoder) uint(n int) (uint64, string) {
	p, ok := d.take(n)
	if !ok {
		return 0, errMissing
	}
	var u uint64
	for _, c := range p {
		u = u<<8 | uint64(c)
	}
	return u, ""
}

func (d *msgpackDecoder) value(depth int) (lua.LValue, string) {
	if depth > 1000 {
		return nil, errBadData
	}
	p, ok := d.take(1)
	if !ok {
		return nil, errMissing
	}
	c := p[0]
	switch {
	case c <= 0x7f:
		return lua.LNumber(c), ""
	case c >= 0xe0:
		return lua.LNumber(int8(c)), ""
	case c&0xe0 == 0xa0:
		return d.str(int(c & 0x1f))
	case c&0xf0 == 0x90:
		return d.array(int(c&0x0f), depth)
	case c&0xf0 == 0x80:
		return d.mapping(int(c&0x0f), depth)
	}
	switch c {
	case 0xc0:
		return lua.LNil, ""
	case 0xc2:
		return lua.LFalse, ""
	case 0xc3:
		return lua.LTrue, ""
	case 0xcc, 0xcd, 0xce, 0xcf:
		u, err := d.uint(1 << (c - 0xcc))
		return lua.LNumber(float64(u)), err
	case 0xd0, 0xd1, 0xd2, 0xd3:
		size := 1 << (c - 0xd0)
		u, err := d.uint(size)
		shift := 64 - 8*size
		return lua.LNumber(float64(int64(u<<shift) >> shift)), err
	case 0xca:
		u, err := d.uint(4)
		return lua.LNumber(math.Float32frombits(uint32(u))), err
	case 0xcb:
		u, err := d.uint(8)
		return lua.LNumber(math.Float64frombits(u)), err
	case 0xd9, 0xda, 0xdb:
		n, err := d.uint(1 << (c - 0xd9))
		if err != "" {
			return nil, err
		}
		return d.str(int(n))
	case 0xdc, 0xdd:
		n, err := d.uint(2 << (c - 0xdc))
		if err != "" {
			return nil, err
		}
		return d.array(int(n), depth)
	case 0xde, 0xdf:
		n, err := d.uint(2 << (c - 0xde))
		if err != "" {
			return nil, err
		}
		return d.mapping(int(n), depth)
	}
	return nil, errBadData
}

func (d *msgpackDecoder) str(n int) (lua.LValue, string) {
	p, ok := d.take(n)
	if !ok {
		return nil, errMissing
	}
	return lua.LString(p), ""
}

func (d *msgpackDecoder) array(n, depth int) (lua.LValue, string) {
	if n > len(d.b) {
		return nil, errMissing // every element takes at least a byte
	}
	t := d.v.L.CreateTable(n, 0)
	for i := 1; i <= n; i++ {
		e, err := d.value(depth + 1)
		if err != "" {
			return nil, err
		}
		t.RawSetInt(i, e)
	}
	return t, ""
}

func (d *msgpackDecoder) mapping(n, depth int) (lua.LValue, string) {
	if n > len(d.b)/2 {
		return nil, errMissing
	}
	t := d.v.L.CreateTable(0, n)
	for range n {
		k, err := d.value(depth + 1)
		if err != "" {
			return nil, err
		}
		val, err := d.value(depth + 1)
		if err != "" {
			return nil, err
		}
		if k == lua.LNil {
			return nil, errBadData
		}
		t.RawSet(k, val)
	}
	return t, ""
}
