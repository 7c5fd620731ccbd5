package script

import (
	"encoding/binary"
	"hash/crc64"
	"maps"
	"slices"
	"strconv"
)

// The payload of FUNCTION DUMP and FUNCTION RESTORE is Redis's: for each
// library the RDB opcode FUNCTION2 (245) and the library's code as an RDB
// string, then the RDB version (2 bytes, little endian) and the CRC64
// (Jones polynomial, as Redis computes it) of everything before, 8 bytes
// little endian. A payload from redis-server restores here and back; a
// code string may come LZF-compressed (Redis compresses long ones).
const (
	rdbOpcodeFunction2 = 245
	rdbOpcodeFunction  = 246 // the format of Redis 7.0's release candidates
	rdbVersion         = 10
)

// RestorePolicy is how FUNCTION RESTORE treats the libraries loaded.
type RestorePolicy int

// The restore policies.
const (
	// RestoreAppend adds the payload's libraries, failing when one exists.
	RestoreAppend RestorePolicy = iota
	// RestoreReplace adds them, replacing those of the same names.
	RestoreReplace
	// RestoreFlush deletes every library, then adds them.
	RestoreFlush
)

// jonesTable is the CRC64 table of the Jones polynomial, reflected.
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// crc64Jones is Redis's crc64(0, p): the reflected Jones CRC with no
// initial or final inversion (crc64.Update inverts on entry and exit).
func crc64Jones(p []byte) uint64 {
	return ^crc64.Update(^uint64(0), jonesTable, p)
}

// DumpLibraries is FUNCTION DUMP: every library in Redis's payload.
func (e *Engine) DumpLibraries() []byte {
	var out []byte
	for _, l := range e.Libraries() {
		out = append(out, rdbOpcodeFunction2)
		out = appendRDBLen(out, uint64(len(l.Code)))
		out = append(out, l.Code...)
	}
	out = binary.LittleEndian.AppendUint16(out, rdbVersion)
	return binary.LittleEndian.AppendUint64(out, crc64Jones(out))
}

func appendRDBLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0x81), n)
}

// libraryCodes decodes a payload into the libraries' codes.
func libraryCodes(payload []byte) ([][]byte, error) {
	n := len(payload)
	if n < 10 {
		return nil, replyError("ERR DUMP payload version or checksum are wrong")
	}
	if binary.LittleEndian.Uint16(payload[n-10:]) > rdbVersion ||
		binary.LittleEndian.Uint64(payload[n-8:]) != crc64Jones(payload[:n-8]) {
		return nil, replyError("ERR DUMP payload version or checksum are wrong")
	}
	r := rdbReader{b: payload[:n-10]}
	var codes [][]byte
	for len(r.b) > 0 {
		t := r.b[0]
		r.b = r.b[1:]
		var code []byte
		var err error
		switch t {
		case rdbOpcodeFunction2:
			var ok bool
			if code, ok = r.str(); !ok {
				err = replyError("ERR Failed loading library payload")
			}
		case rdbOpcodeFunction:
			code, err = r.preGAFunction()
		default:
			return nil, replyError("ERR given type is not a function")
		}
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}

// preGAFunction reads a library in the format of Redis 7.0's release
// candidates (name, engine, optional description, code) as the code of
// today's format, "#!ENGINE name=NAME\n" and the code.
func (r *rdbReader) preGAFunction() ([]byte, error) {
	name, ok := r.str()
	if !ok {
		return nil, replyError("ERR Failed loading library name")
	}
	engine, ok := r.str()
	if !ok {
		return nil, replyError("ERR Failed loading engine name")
	}
	hasDesc, encoded, ok := r.length()
	if !ok || encoded {
		return nil, replyError("ERR Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, ok := r.str(); !ok {
			return nil, replyError("ERR Failed loading library description")
		}
	}
	blob, ok := r.str()
	if !ok {
		return nil, replyError("ERR Failed loading library blob")
	}
	code := append([]byte("#!"), engine...)
	code = append(append(append(code, " name="...), name...), '\n')
	return append(code, blob...), nil
}

// rdbReader reads RDB strings.
type rdbReader struct{ b []byte }

// length reads an RDB length; encoded reports the special string
// encodings (11xxxxxx), whose kind is then the length.
func (r *rdbReader) length() (n uint64, encoded, ok bool) {
	if len(r.b) == 0 {
		return 0, false, false
	}
	c := r.b[0]
	switch c >> 6 {
	case 0:
		r.b = r.b[1:]
		return uint64(c & 0x3f), false, true
	case 1:
		if len(r.b) < 2 {
			return 0, false, false
		}
		n = uint64(c&0x3f)<<8 | uint64(r.b[1])
		r.b = r.b[2:]
		return n, false, true
	case 3:
		r.b = r.b[1:]
		return uint64(c & 0x3f), true, true
	}
	switch c {
	case 0x80:
		if len(r.b) < 5 {
			return 0, false, false
		}
		n = uint64(binary.BigEndian.Uint32(r.b[1:]))
		r.b = r.b[5:]
		return n, false, true
	case 0x81:
		if len(r.b) < 9 {
			return 0, false, false
		}
		n = binary.BigEndian.Uint64(r.b[1:])
		r.b = r.b[9:]
		return n, false, true
	}
	return 0, false, false
}

func (r *rdbReader) bytes(n uint64) ([]byte, bool) {
	if n > uint64(len(r.b)) {
		return nil, false
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, true
}

// str reads an RDB string: raw, an integer, or LZF-compressed.
func (r *rdbReader) str() ([]byte, bool) {
	n, encoded, ok := r.length()
	if !ok {
		return nil, false
	}
	if !encoded {
		b, ok := r.bytes(n)
		return append([]byte(nil), b...), ok
	}
	switch n {
	case 0, 1, 2: // int8, int16, int32, little endian
		size := uint64(1) << n
		b, ok := r.bytes(size)
		if !ok {
			return nil, false
		}
		var v int64
		switch n {
		case 0:
			v = int64(int8(b[0]))
		case 1:
			v = int64(int16(binary.LittleEndian.Uint16(b)))
		case 2:
			v = int64(int32(binary.LittleEndian.Uint32(b)))
		}
		return strconv.AppendInt(nil, v, 10), true
	case 3: // LZF: compressed length, length, data
		clen, _, ok1 := r.length()
		ulen, _, ok2 := r.length()
		if !ok1 || !ok2 || ulen > 1<<32 {
			return nil, false
		}
		c, ok := r.bytes(clen)
		if !ok {
			return nil, false
		}
		return lzfDecompress(c, int(ulen))
	}
	return nil, false
}

// lzfDecompress decompresses LZF data (liblzf's format) of ulen bytes.
func lzfDecompress(in []byte, ulen int) ([]byte, bool) {
	out := make([]byte, 0, ulen)
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 { // a literal run of ctrl+1 bytes
			n := ctrl + 1
			if i+n > len(in) || len(out)+n > ulen {
				return nil, false
			}
			out = append(out, in[i:i+n]...)
			i += n
			continue
		}
		n := ctrl >> 5 // a back reference
		if n == 7 {
			if i >= len(in) {
				return nil, false
			}
			n += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, false
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(in[i]) - 1
		i++
		n += 2
		if ref < 0 || len(out)+n > ulen {
			return nil, false
		}
		for k := 0; k < n; k++ {
			out = append(out, out[ref+k])
		}
	}
	if len(out) != ulen {
		return nil, false
	}
	return out, true
}

// RestoreLibraries is FUNCTION RESTORE: it loads the libraries of a
// payload (from DumpLibraries or redis-server) under policy, all or none.
func (e *Engine) RestoreLibraries(payload []byte, policy RestorePolicy) error {
	codes, err := libraryCodes(payload)
	if err != nil {
		return err
	}
	e.fvmMu.Lock()
	defer e.fvmMu.Unlock()
	set := newFunctionSet()
	for _, code := range codes {
		if _, err := e.loadInto(set, code, false, 0); err != nil {
			return err
		}
	}
	e.fmu.Lock()
	defer e.fmu.Unlock()
	if policy == RestoreFlush {
		e.funcs = set
		return nil
	}
	var replaced []*library
	names := slices.Sorted(maps.Keys(set.libs))
	for _, name := range names {
		l := set.libs[name]
		if old := e.funcs.libs[l.name]; old != nil {
			if policy != RestoreReplace {
				e.relink(replaced)
				return replyError("ERR Library " + l.name + " already exists")
			}
			e.funcs.unlink(old)
			replaced = append(replaced, old)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(set.fns)) {
		f := set.fns[key]
		if _, ok := e.funcs.fns[key]; ok {
			e.relink(replaced)
			return replyError("ERR Function " + f.info.Name + " already exists")
		}
	}
	for _, l := range set.libs {
		e.funcs.link(l)
	}
	return nil
}

func (e *Engine) relink(libs []*library) {
	for _, l := range libs {
		e.funcs.link(l)
	}
}
