package hll

import (
	"strconv"
	"strings"
)

// Max holds one byte per register: the union of HyperLogLogs merged into
// it (PFCOUNT of several keys, PFMERGE).
type Max [Registers]uint8

// Merge raises each register of m to the one of the checked value b.
func (m *Max) Merge(b []byte) error {
	if IsDense(b) {
		r := b[headerSize:]
		for i := range m {
			if v := denseGet(r, i); v > m[i] {
				m[i] = v
			}
		}
		return nil
	}
	i := 0
	for pos := headerSize; pos < len(b); {
		op := b[pos]
		switch {
		case op&0xc0 == 0:
			i += int(op&0x3f) + 1
			pos++
		case op&0xc0 == 0x40:
			i += xzeroLen(b, pos)
			pos += 2
		default:
			n, val := int(op&3)+1, (op>>2)&0x1f+1
			if i+n > Registers {
				return ErrCorrupt
			}
			for ; n > 0; n-- {
				if val > m[i] {
					m[i] = val
				}
				i++
			}
			pos++
		}
	}
	if i != Registers {
		return ErrCorrupt
	}
	return nil
}

// Count is the estimated cardinality of the union in m.
func (m *Max) Count() uint64 {
	var h histogram
	for _, v := range m {
		h[v]++
	}
	return h.estimate()
}

// Store writes the registers of m into the checked value dest as PFMERGE
// does: dest is made dense first when dense is set, each non-zero register
// is raised in register order (a sparse dest may turn dense on the way),
// and the cached cardinality is invalidated. dest is not modified.
func Store(dest []byte, m *Max, dense bool, sparseMax int) ([]byte, error) {
	v := append([]byte(nil), dest...)
	if dense {
		var err error
		if v, err = ToDense(v); err != nil {
			return nil, err
		}
	}
	for i, c := range m {
		if c == 0 {
			continue
		}
		nv, _, err := set(v, i, c, sparseMax)
		if err != nil {
			// Redis leaves a register it cannot place in a corrupt
			// sparse value as it is and goes on.
			continue
		}
		v = nv
	}
	InvalidateCache(v)
	return v, nil
}

// RegisterValues returns the dense form of the checked value b (for PFDEBUG
// GETREG) and its registers.
func RegisterValues(b []byte) ([]byte, []uint8, error) {
	d, err := ToDense(b)
	if err != nil {
		return nil, nil, err
	}
	out := make([]uint8, Registers)
	for i := range out {
		out[i] = denseGet(d[headerSize:], i)
	}
	return d, out, nil
}

// Decode describes the opcodes of a sparse value as PFDEBUG DECODE shows
// them: "z:len" (ZERO), "Z:len" (XZERO), "v:value,len" (VAL), separated by
// spaces; ok is false for a dense value.
func Decode(b []byte) (string, bool) {
	if IsDense(b) {
		return "", false
	}
	var sb strings.Builder
	for pos := headerSize; pos < len(b); {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		op := b[pos]
		switch {
		case op&0xc0 == 0:
			sb.WriteString("z:" + strconv.Itoa(int(op&0x3f)+1))
			pos++
		case op&0xc0 == 0x40:
			sb.WriteString("Z:" + strconv.Itoa(xzeroLen(b, pos)))
			pos += 2
		default:
			sb.WriteString("v:" + strconv.Itoa(int((op>>2)&0x1f)+1) + "," + strconv.Itoa(int(op&3)+1))
			pos++
		}
	}
	return sb.String(), true
}
