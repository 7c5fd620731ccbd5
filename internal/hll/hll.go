package hll

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Errors of a value that is not a usable HyperLogLog.
var (
	// ErrInvalid is returned for a string that is not a HyperLogLog.
	ErrInvalid = errors.New("hll: not a valid HyperLogLog string value")
	// ErrCorrupt is returned for a HyperLogLog whose registers cannot be
	// read.
	ErrCorrupt = errors.New("hll: corrupted HyperLogLog object")
)

// The geometry of Redis's HyperLogLog.
const (
	// Registers is the number of registers.
	Registers = 1 << p
	p         = 14     // bits of the hash that choose the register
	q         = 64 - p // bits of the hash whose first set bit is counted
	regBits   = 6
	regMax    = 1<<regBits - 1

	headerSize = 16
	// DenseSize is the length of a dense value.
	DenseSize = headerSize + (Registers*regBits+7)/8

	encDense  = 0
	encSparse = 1

	sparseValMax   = 32
	sparseValLen   = 4
	sparseZeroLen  = 64
	sparseXZeroLen = 16384

	hashSeed = 0xadc83b19
)

// New returns an empty HyperLogLog: sparse, all registers zero, with a
// valid cached cardinality of 0.
func New() []byte {
	b := make([]byte, headerSize, headerSize+2)
	copy(b, "HYLL")
	b[4] = encSparse
	return appendXZero(b, Registers)
}

// Check reports whether b is a HyperLogLog (ErrInvalid if not).
func Check(b []byte) error {
	if len(b) < headerSize || string(b[:4]) != "HYLL" || b[4] > encSparse ||
		(b[4] == encDense && len(b) != DenseSize) {
		return ErrInvalid
	}
	return nil
}

// IsDense reports whether the checked value b is dense.
func IsDense(b []byte) bool { return b[4] == encDense }

// InvalidateCache marks the cached cardinality of the checked value b as
// not valid, as a change of its registers does.
func InvalidateCache(b []byte) { b[15] |= 0x80 }

func cacheValid(b []byte) bool { return b[15]&0x80 == 0 }

// patLen returns the register an element hashes to and its candidate value.
func patLen(ele []byte) (int, uint8) {
	h := murmurHash64A(ele, hashSeed)
	index := int(h & (Registers - 1))
	h >>= p
	h |= 1 << q
	return index, uint8(bits.TrailingZeros64(h) + 1)
}

// Add adds elements to the checked value b, turning it dense when the
// sparse encoding cannot hold it within sparseMax bytes. It returns the new
// value (b is not modified) and whether a register changed; a changed value
// has its cached cardinality invalidated.
func Add(b []byte, elements [][]byte, sparseMax int) ([]byte, bool, error) {
	v := append(make([]byte, 0, len(b)+8), b...)
	changed := false
	for _, e := range elements {
		i, c := patLen(e)
		var ok bool
		var err error
		if v, ok, err = set(v, i, c, sparseMax); err != nil {
			return nil, false, err
		}
		changed = changed || ok
	}
	if changed {
		InvalidateCache(v)
	}
	return v, changed, nil
}

// set raises register i of v to c if it is lower, reporting whether it
// did; v may be reallocated (a sparse update, a promotion to dense).
func set(v []byte, i int, c uint8, sparseMax int) ([]byte, bool, error) {
	if IsDense(v) {
		return v, denseSet(v[headerSize:], i, c), nil
	}
	return sparseSet(v, i, c, sparseMax)
}

// denseGet returns register i of the dense registers r.
func denseGet(r []byte, i int) uint8 {
	pos := i * regBits
	n, fb := pos/8, uint(pos&7)
	b0 := uint(r[n])
	var b1 uint
	if n+1 < len(r) {
		b1 = uint(r[n+1])
	}
	return uint8(((b0 >> fb) | (b1 << (8 - fb))) & regMax)
}

// densePut stores val in register i of the dense registers r.
func densePut(r []byte, i int, val uint8) {
	pos := i * regBits
	n, fb := pos/8, uint(pos&7)
	v := uint(val)
	r[n] &^= byte(regMax << fb)
	r[n] |= byte(v << fb)
	if n+1 < len(r) {
		r[n+1] &^= byte(regMax >> (8 - fb))
		r[n+1] |= byte(v >> (8 - fb))
	}
}

// denseSet raises register i to c if it is lower.
func denseSet(r []byte, i int, c uint8) bool {
	if c > denseGet(r, i) {
		densePut(r, i, c)
		return true
	}
	return false
}

// ToDense returns the dense form of the checked value b (b itself when it
// is dense), keeping its header's cached cardinality.
func ToDense(b []byte) ([]byte, error) {
	if IsDense(b) {
		return b, nil
	}
	d := make([]byte, DenseSize)
	copy(d, b[:headerSize])
	d[4] = encDense
	r := d[headerSize:]
	idx := 0
	for pos := headerSize; pos < len(b); {
		op := b[pos]
		switch {
		case op&0xc0 == 0:
			idx += int(op&0x3f) + 1
			pos++
		case op&0xc0 == 0x40:
			idx += xzeroLen(b, pos)
			pos += 2
		default:
			n, val := int(op&3)+1, (op>>2)&0x1f+1
			if idx+n > Registers {
				return nil, ErrCorrupt
			}
			for ; n > 0; n-- {
				densePut(r, idx, val)
				idx++
			}
			pos++
		}
	}
	if idx != Registers {
		return nil, ErrCorrupt
	}
	return d, nil
}

// xzeroLen is the run of the XZERO opcode at pos; a truncated opcode reads
// its missing second byte as zero.
func xzeroLen(b []byte, pos int) int {
	var lo int
	if pos+1 < len(b) {
		lo = int(b[pos+1])
	}
	return (int(b[pos]&0x3f)<<8 | lo) + 1
}

func appendXZero(b []byte, n int) []byte {
	n--
	return append(b, byte(n>>8)|0x40, byte(n))
}

func valOp(val uint8, n int) byte { return (val-1)<<2 | byte(n-1) | 0x80 }

// sparseSet raises register i of the sparse value v to c if it is lower:
// the opcode covering i is split into at most three (a zero run, the new
// value, a zero run; or the old value's runs around the new one), then
// equal VAL opcodes next to each other are merged from the opcode before
// the split on, over at most five opcodes. A value above 32, or a split
// that would make v longer than sparseMax, turns v dense first.
func sparseSet(v []byte, i int, c uint8, sparseMax int) ([]byte, bool, error) {
	if c > sparseValMax {
		return promote(v, i, c)
	}
	end := len(v)
	pos, first, span, prev := headerSize, 0, 0, -1
	for pos < end {
		op := v[pos]
		oplen := 1
		switch {
		case op&0xc0 == 0:
			span = int(op&0x3f) + 1
		case op&0x80 != 0:
			span = int(op&3) + 1
		default:
			span = xzeroLen(v, pos)
			oplen = 2
		}
		if i <= first+span-1 {
			break
		}
		prev = pos
		pos += oplen
		first += span
	}
	if span == 0 || pos >= end {
		return nil, false, ErrCorrupt
	}
	op := v[pos]
	isZero, isXZero, isVal := op&0xc0 == 0, op&0xc0 == 0x40, op&0x80 != 0
	var runlen int
	switch {
	case isZero:
		runlen = int(op&0x3f) + 1
	case isXZero:
		runlen = xzeroLen(v, pos)
	default:
		runlen = int(op&3) + 1
	}
	updated := false
	if isVal {
		old := (op>>2)&0x1f + 1
		if old >= c {
			return v, false, nil
		}
		if runlen == 1 {
			v[pos] = valOp(c, 1)
			updated = true
		}
	}
	if !updated && isZero && runlen == 1 {
		v[pos] = valOp(c, 1)
		updated = true
	}
	if !updated {
		seq := make([]byte, 0, 5)
		last := first + span - 1
		zeros := func(n int) {
			if n > sparseZeroLen {
				seq = appendXZero(seq, n)
			} else {
				seq = append(seq, byte(n-1))
			}
		}
		if isZero || isXZero {
			if i != first {
				zeros(i - first)
			}
			seq = append(seq, valOp(c, 1))
			if i != last {
				zeros(last - i)
			}
		} else {
			cur := (op>>2)&0x1f + 1
			if i != first {
				seq = append(seq, valOp(cur, i-first))
			}
			seq = append(seq, valOp(c, 1))
			if i != last {
				seq = append(seq, valOp(cur, last-i))
			}
		}
		oldlen := 1
		if isXZero {
			oldlen = 2
		}
		if delta := len(seq) - oldlen; delta > 0 && len(v)+delta > sparseMax {
			return promote(v, i, c)
		}
		v = append(v[:pos], append(seq, v[min(pos+oldlen, len(v)):]...)...)
	}
	// Merge equal adjacent VAL opcodes.
	pos = headerSize
	if prev >= 0 {
		pos = prev
	}
	for scan := 5; pos < len(v) && scan > 0; scan-- {
		op := v[pos]
		if op&0xc0 == 0x40 {
			pos += 2
			continue
		}
		if op&0xc0 == 0 {
			pos++
			continue
		}
		if pos+1 < len(v) && v[pos+1]&0x80 != 0 {
			v1, v2 := (op>>2)&0x1f+1, (v[pos+1]>>2)&0x1f+1
			if n := int(op&3) + int(v[pos+1]&3) + 2; v1 == v2 && n <= sparseValLen {
				v[pos+1] = valOp(v1, n)
				v = append(v[:pos], v[pos+1:]...)
				continue
			}
		}
		pos++
	}
	return v, true, nil
}

// promote turns the sparse value v dense and sets register i to c.
func promote(v []byte, i int, c uint8) ([]byte, bool, error) {
	d, err := ToDense(v)
	if err != nil {
		return nil, false, err
	}
	denseSet(d[headerSize:], i, c)
	return d, true, nil
}

// Count returns the cardinality of the checked value b: the cached one when
// valid, otherwise the estimate, with the value carrying it in its cache
// (nil when the cache was valid and b needs no rewrite).
func Count(b []byte) (uint64, []byte, error) {
	if cacheValid(b) {
		return binary.LittleEndian.Uint64(b[8:16]), nil, nil
	}
	var h histogram
	if IsDense(b) {
		r := b[headerSize:]
		for i := 0; i < Registers; i++ {
			h[denseGet(r, i)]++
		}
	} else if !h.addSparse(b[headerSize:]) {
		return 0, nil, ErrCorrupt
	}
	card := h.estimate()
	nb := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(nb[8:16], card)
	return card, nb, nil
}

// histogram counts registers by value.
type histogram [64]int

// addSparse counts the registers of sparse opcodes; it reports whether
// they cover exactly the 16384 registers.
func (h *histogram) addSparse(ops []byte) bool {
	idx := 0
	for pos := 0; pos < len(ops); {
		op := ops[pos]
		switch {
		case op&0xc0 == 0:
			n := int(op&0x3f) + 1
			idx += n
			h[0] += n
			pos++
		case op&0xc0 == 0x40:
			n := xzeroLen(ops, pos)
			idx += n
			h[0] += n
			pos += 2
		default:
			n := int(op&3) + 1
			idx += n
			h[(op>>2)&0x1f+1] += n
			pos++
		}
	}
	return idx == Registers
}
