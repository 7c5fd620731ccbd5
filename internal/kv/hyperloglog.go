package kv

import "github.com/mayfly/mayfly/internal/hll"

// HyperLogLogs are string values in Redis's representation (package hll):
// GET, SET and every string command see their bytes. Updating one keeps
// its expiry; PFADD and PFMERGE emit `pfadd` (class string) when they
// change it; PFCOUNT stores the cardinality it computed in the value's
// header, which is a write without an event.

// hllForRead looks key up for reading and checks it holds a HyperLogLog.
func (tx *Tx) hllForRead(key []byte) (Meta, bool, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok {
		return m, ok, err
	}
	if m.Type != TypeString {
		return m, true, ErrWrongType
	}
	return m, true, hll.Check(m.Payload)
}

// PFAdd adds elements to the HyperLogLog at key, creating it, and reports
// whether it changed (a new key counts as a change). sparseMax is
// hll-sparse-max-bytes.
func (tx *Tx) PFAdd(key []byte, elements [][]byte, sparseMax int) (bool, error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return false, err
	}
	cur := m.Payload
	if !ok {
		cur = hll.New()
	} else if err := hll.Check(cur); err != nil {
		return false, err
	}
	nv, changed, err := hll.Add(cur, elements, sparseMax)
	if err != nil {
		return false, err
	}
	if !changed && ok {
		return false, nil
	}
	if !changed { // a new, empty HyperLogLog: its cache is not valid either
		hll.InvalidateCache(nv)
	}
	if err := tx.writeString(key, m, ok, nv, 0, true); err != nil {
		return false, err
	}
	tx.notify(ClassString, "pfadd", key)
	return true, nil
}

// PFCount returns the estimated cardinality of the union of the
// HyperLogLogs at keys (a missing key counts as empty). For one key the
// computed cardinality is cached in its value.
func (tx *Tx) PFCount(keys [][]byte) (int64, error) {
	if len(keys) > 1 {
		var max hll.Max
		for _, k := range keys {
			m, ok, err := tx.hllForRead(k)
			if err != nil {
				return 0, err
			}
			if ok {
				if err := max.Merge(m.Payload); err != nil {
					return 0, err
				}
			}
		}
		return int64(max.Count()), nil
	}
	m, ok, err := tx.hllForRead(keys[0])
	if err != nil || !ok {
		return 0, err
	}
	card, nv, err := hll.Count(m.Payload)
	if err != nil {
		return 0, err
	}
	if nv != nil {
		if err := tx.writeString(keys[0], m, true, nv, 0, true); err != nil {
			return 0, err
		}
	}
	return int64(card), nil
}

// PFMerge stores at dest the union of the HyperLogLogs at dest and srcs
// (dest is created when missing, keeping its expiry otherwise). The result
// is dense when one of them is.
func (tx *Tx) PFMerge(dest []byte, srcs [][]byte, sparseMax int) error {
	var max hll.Max
	dense := false
	for _, k := range append([][]byte{dest}, srcs...) {
		m, ok, err := tx.hllForRead(k)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		dense = dense || hll.IsDense(m.Payload)
		if err := max.Merge(m.Payload); err != nil {
			return err
		}
	}
	m, ok, err := tx.stringForUpdate(dest)
	if err != nil {
		return err
	}
	cur := m.Payload
	if !ok {
		cur = hll.New()
	}
	nv, err := hll.Store(cur, &max, dense, sparseMax)
	if err != nil {
		return err
	}
	if err := tx.writeString(dest, m, ok, nv, 0, true); err != nil {
		return err
	}
	tx.notify(ClassString, "pfadd", dest)
	return nil
}

// PFDebugReply is what a PFDEBUG subcommand answers.
type PFDebugReply struct {
	Registers []uint8 // GETREG
	Decoded   string  // DECODE
	NotSparse bool    // DECODE of a dense value
	Encoding  string  // ENCODING: "sparse" or "dense"
	Converted bool    // TODENSE: the value was sparse
	Unknown   bool    // not a PFDEBUG subcommand
}

// PFDebug runs PFDEBUG's subcommand sub (lowercase) on the HyperLogLog at
// key; found is false when key does not exist. GETREG and TODENSE store a
// sparse value dense.
func (tx *Tx) PFDebug(sub string, key []byte) (r PFDebugReply, found bool, err error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil || !ok {
		return r, ok, err
	}
	if err := hll.Check(m.Payload); err != nil {
		return r, true, err
	}
	v := m.Payload
	var nv []byte
	switch sub {
	case "getreg":
		var d []byte
		if d, r.Registers, err = hll.RegisterValues(v); err != nil {
			return r, true, err
		}
		if !hll.IsDense(v) {
			nv = d
		}
	case "decode":
		r.Decoded, ok = hll.Decode(v)
		r.NotSparse = !ok
	case "encoding":
		r.Encoding = "sparse"
		if hll.IsDense(v) {
			r.Encoding = "dense"
		}
	case "todense":
		if !hll.IsDense(v) {
			if nv, err = hll.ToDense(v); err != nil {
				return r, true, err
			}
			r.Converted = true
		}
	default:
		r.Unknown = true
	}
	if nv != nil {
		if err := tx.writeString(key, m, true, nv, 0, true); err != nil {
			return r, true, err
		}
	}
	return r, true, nil
}

// HLLSelfTest is PFSELFTEST: the self test of the HyperLogLog registers
// and estimator, with its random values drawn from seed (hll.SelfTest).
func HLLSelfTest(seed uint64, sparseMax int) error { return hll.SelfTest(seed, sparseMax) }
