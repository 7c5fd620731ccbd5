package script

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library Redis ships (struct.pack, struct.unpack,
// struct.size), with the sizes and alignment of Redis's 64-bit
// little-endian build: a format is a sequence of options
//
//	>  big endian          <  little endian (the default)
//	![n] align to n (a power of 2, default 8); the default is no alignment
//	b/B  signed/unsigned char (1 byte)   h/H  short (2)   l/L  long (8)
//	T    size_t (8)        i/I[n] int of n bytes (default 4, at most 32)
//	f    float (4)         d  double (8)
//	s    zero-terminated string          x  one zero byte of padding
//	c[n] n characters (c0 in unpack: the length is the value read before)
//	' '  ignored
//
// Integers are 64-bit: an integer wider than 8 bytes carries zero bytes
// above them.
const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	little bool
	align  int
}

func (v *vm) structLib() *lua.LTable {
	L := v.L
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// argError raises Lua 5.1's "bad argument #N to 'FN' (MSG)".
func argError(L *lua.LState, n int, fn, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fn, msg)
}

// structNumber is Lua's luaL_checknumber for argument n of fn: a number
// or a string that reads as one.
func structNumber(L *lua.LState, n int, fn string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64); err == nil {
			return f
		}
	}
	argError(L, n, fn, "number expected, got "+luaTypeName(L.Get(n)))
	return 0
}

// structString is Lua's luaL_checklstring for argument n of fn: a string
// or a number.
func structString(L *lua.LState, n int, fn string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	}
	argError(L, n, fn, "string expected, got "+luaTypeName(L.Get(n)))
	return ""
}

// luaTypeName is Lua 5.1's name of a value's type ("no value" for a
// missing argument is "nil" here).
func luaTypeName(v lua.LValue) string { return v.Type().String() }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// getNum reads the number at fmt[*i:], or returns df when there is none.
func getNum(L *lua.LState, fmt string, i *int, df int) int {
	if *i >= len(fmt) || !isDigit(fmt[*i]) {
		return df
	}
	a := 0
	for *i < len(fmt) && isDigit(fmt[*i]) {
		d := int(fmt[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

// optSize returns the size of option opt, reading its number.
func optSize(L *lua.LState, opt byte, fmt string, i *int) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return getNum(L, fmt, i, 1)
	case 'i', 'I':
		sz := getNum(L, fmt, i, 4)
		if sz > structMaxIntSize {
			L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

// toAlign returns the padding before an option of size at offset n.
func toAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	size = min(size, h.align)
	return (size - (n & (size - 1))) & (size - 1)
}

// controlOption applies a non-data option (endianness, alignment, space).
func controlOption(L *lua.LState, fn string, opt byte, fmt string, i *int, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := getNum(L, fmt, i, structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			L.RaiseError("alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(L, 1, fn, "invalid format option '"+string(opt)+"'")
	}
}

func putInteger(b *strings.Builder, n float64, little bool, size int) {
	var value uint64
	if n < 0 {
		value = uint64(int64(n))
	} else {
		value = uint64(n)
	}
	buf := make([]byte, size)
	for k := 0; k < size; k++ {
		pos := k
		if !little {
			pos = size - 1 - k
		}
		buf[pos] = byte(value)
		value >>= 8
	}
	b.Write(buf)
}

func structPack(L *lua.LState) int {
	fmt := structString(L, 1, "pack")
	h := structHeader{little: true, align: 1}
	arg := 2
	total := 0
	var b strings.Builder
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optSize(L, opt, fmt, &i)
		pad := toAlign(total, &h, opt, size)
		total += pad
		for ; pad > 0; pad-- {
			b.WriteByte(0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			putInteger(&b, structNumber(L, arg, "pack"), h.little, size)
			arg++
		case 'x':
			b.WriteByte(0)
		case 'f':
			bits := math.Float32bits(float32(structNumber(L, arg, "pack")))
			arg++
			var buf [4]byte
			if h.little {
				binary.LittleEndian.PutUint32(buf[:], bits)
			} else {
				binary.BigEndian.PutUint32(buf[:], bits)
			}
			b.Write(buf[:])
		case 'd':
			bits := math.Float64bits(structNumber(L, arg, "pack"))
			arg++
			var buf [8]byte
			if h.little {
				binary.LittleEndian.PutUint64(buf[:], bits)
			} else {
				binary.BigEndian.PutUint64(buf[:], bits)
			}
			b.Write(buf[:])
		case 'c', 's':
			s := structString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			b.WriteString(s[:size])
			if opt == 's' {
				b.WriteByte(0)
				size++
			}
		default:
			controlOption(L, "pack", opt, fmt, &i, &h)
		}
		total += size
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func getInteger(buf []byte, little, signed bool, size int) float64 {
	var l uint64
	for k := 0; k < size; k++ {
		pos := k
		if little {
			pos = size - 1 - k
		}
		l = l<<8 | uint64(buf[pos])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	fmt := structString(L, 1, "unpack")
	data := structString(L, 2, "unpack")
	start := L.OptInt(3, 1)
	if start <= 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos := start - 1
	ld := len(data)
	h := structHeader{little: true, align: 1}
	n := 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optSize(L, opt, fmt, &i)
		pos += toAlign(pos, &h, opt, size)
		if !(size <= ld && pos <= ld-size) {
			argError(L, 2, "unpack", "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			L.Push(lua.LNumber(getInteger([]byte(data[pos:pos+size]), h.little, signed, size)))
			n++
		case 'x':
		case 'f':
			bits := binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			if !h.little {
				bits = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			L.Push(lua.LNumber(math.Float32frombits(bits)))
			n++
		case 'd':
			bits := binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			if !h.little {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			L.Push(lua.LNumber(math.Float64frombits(bits)))
			n++
		case 'c':
			if size == 0 {
				var prev float64
				ok := false
				if n > 0 {
					switch p := L.Get(-1).(type) {
					case lua.LNumber:
						prev, ok = float64(p), true
					case lua.LString:
						f, err := strconv.ParseFloat(strings.TrimSpace(string(p)), 64)
						prev, ok = f, err == nil
					}
				}
				if !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				L.Pop(1)
				n--
				if prev < 0 || prev > float64(ld) {
					argError(L, 2, "unpack", "data string too short")
				}
				size = int(prev)
				if !(size <= ld && pos <= ld-size) {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			L.Push(lua.LString(data[pos : pos+e]))
			n++
		default:
			controlOption(L, "unpack", opt, fmt, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	fmt := structString(L, 1, "size")
	h := structHeader{little: true, align: 1}
	pos := 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := optSize(L, opt, fmt, &i)
		pos += toAlign(pos, &h, opt, size)
		switch {
		case opt == 's':
			argError(L, 1, "size", "option 's' has no fixed size")
		case opt == 'c' && size == 0:
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !(opt >= 'a' && opt <= 'z' || opt >= 'A' && opt <= 'Z' || isDigit(opt)) {
			controlOption(L, "size", opt, fmt, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
