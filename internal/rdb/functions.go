package rdb

import (
	"encoding/binary"
	"errors"
)

// The payload of FUNCTION DUMP and FUNCTION RESTORE holds, for each
// library, the opcode FUNCTION2 and the library's code as an RDB string,
// then the footer every payload has (RDB version, checksum). Redis 7.0's
// release candidates wrote the opcode FUNCTION instead, followed by the
// library's name, engine, an optional description and its code; Load
// accepts both.
const (
	opFunction2   = 245
	opFunctionPre = 246
)

// ErrNotFunction is a FUNCTION payload holding something other than a
// library.
var ErrNotFunction = errors.New("given type is not a function")

// FunctionLoadError is a library of a FUNCTION payload that cannot be
// read; its text is Redis's words for the part that failed.
type FunctionLoadError string

func (e FunctionLoadError) Error() string { return string(e) }

// DumpFunctions serializes the libraries' codes as FUNCTION DUMP does.
func DumpFunctions(codes [][]byte) []byte {
	var w writer
	for _, code := range codes {
		w.byte(opFunction2)
		w.length(uint64(len(code)))
		w.b = append(w.b, code...)
	}
	w.b = binary.LittleEndian.AppendUint16(w.b, Version)
	return binary.LittleEndian.AppendUint64(w.b, checksum(w.b))
}

// LoadFunctions verifies a FUNCTION payload and returns its libraries'
// codes; a library of the release candidates' format comes back as the
// code of today's, "#!ENGINE name=NAME\n" and the code. The error is
// ErrVersion, ErrNotFunction or a FunctionLoadError.
func LoadFunctions(payload []byte) ([][]byte, error) {
	if err := Verify(payload); err != nil {
		return nil, err
	}
	r := reader{b: payload[:len(payload)-10]}
	var codes [][]byte
	for r.p < len(r.b) {
		op, _ := r.byte()
		var code []byte
		var err error
		switch op {
		case opFunction2:
			if code, err = r.string(); err != nil {
				err = FunctionLoadError("Failed loading library payload")
			}
		case opFunctionPre:
			code, err = r.preReleaseFunction()
		default:
			return nil, ErrNotFunction
		}
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}

// preReleaseFunction reads a library of the release candidates' format.
func (r *reader) preReleaseFunction() ([]byte, error) {
	name, err := r.string()
	if err != nil {
		return nil, FunctionLoadError("Failed loading library name")
	}
	engine, err := r.string()
	if err != nil {
		return nil, FunctionLoadError("Failed loading engine name")
	}
	hasDesc, err := r.length()
	if err != nil {
		return nil, FunctionLoadError("Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, err := r.string(); err != nil {
			return nil, FunctionLoadError("Failed loading library description")
		}
	}
	blob, err := r.string()
	if err != nil {
		return nil, FunctionLoadError("Failed loading library blob")
	}
	code := append([]byte("#!"), engine...)
	code = append(append(append(code, " name="...), name...), '\n')
	return append(code, blob...), nil
}
