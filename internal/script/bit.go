package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// bitLib is LuaBitOp's bit library: operations on numbers as 32-bit
// signed integers.
func (v *vm) bitLib() *lua.LTable {
	L := v.L
	t := L.NewTable()
	unary := map[string]func(int32) int32{
		"tobit": func(a int32) int32 { return a },
		"bnot":  func(a int32) int32 { return ^a },
		"bswap": func(a int32) int32 {
			u := uint32(a)
			return int32(u>>24 | (u>>8)&0xff00 | (u<<8)&0xff0000 | u<<24)
		},
	}
	for name, f := range unary {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(f(toBit(L, 1))))
			return 1
		}))
	}
	fold := map[string]func(a, b int32) int32{
		"band": func(a, b int32) int32 { return a & b },
		"bor":  func(a, b int32) int32 { return a | b },
		"bxor": func(a, b int32) int32 { return a ^ b },
	}
	for name, f := range fold {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			r := toBit(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				r = f(r, toBit(L, i))
			}
			L.Push(lua.LNumber(r))
			return 1
		}))
	}
	shift := map[string]func(a int32, n uint) int32{
		"lshift":  func(a int32, n uint) int32 { return int32(uint32(a) << n) },
		"rshift":  func(a int32, n uint) int32 { return int32(uint32(a) >> n) },
		"arshift": func(a int32, n uint) int32 { return a >> n },
		"rol":     func(a int32, n uint) int32 { u := uint32(a); return int32(u<<n | u>>(32-n)) },
		"ror":     func(a int32, n uint) int32 { u := uint32(a); return int32(u>>n | u<<(32-n)) },
	}
	for name, f := range shift {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			a, n := toBit(L, 1), uint(toBit(L, 2))&31
			L.Push(lua.LNumber(f(a, n)))
			return 1
		}))
	}
	t.RawSetString("tohex", L.NewFunction(func(L *lua.LState) int {
		a := uint32(toBit(L, 1))
		n := 8
		if L.GetTop() >= 2 {
			n = int(toBit(L, 2))
		}
		digits := "0123456789abcdef"
		if n < 0 {
			n, digits = -n, "0123456789ABCDEF"
		}
		n = min(n, 8)
		buf := make([]byte, n)
		for i := n - 1; i >= 0; i-- {
			buf[i] = digits[a&15]
			a >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	}))
	return t
}

// toBit converts argument i to a 32-bit integer as LuaBitOp does (modulo
// 2^32, wrapped to signed).
func toBit(L *lua.LState, i int) int32 {
	f := float64(L.CheckNumber(i))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	m := math.Mod(math.Trunc(f), 4294967296)
	if m < 0 {
		m += 4294967296
	}
	return int32(uint32(m))
}
