package kv

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// refField is what BITFIELD's SET or INCRBY stores, computed with exact
// integers: the result is in range, or it overflows and wraps to the low
// bits (sign extended for signed fields) or saturates at the bound.
func refField(signed bool, bits uint, old, arg int64, incr bool, ow Overflow) (int64, bool) {
	lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), bits)
	hi.Sub(hi, big.NewInt(1))
	if signed {
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	}
	v := big.NewInt(arg)
	if !signed && !incr {
		v = new(big.Int).SetUint64(uint64(arg)) // an unsigned SET reads its value as unsigned
	}
	if incr {
		v.Add(v, big.NewInt(old))
	}
	if v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0 {
		return v.Int64(), false
	}
	if ow == OverflowSat {
		// Redis computes the room left above, max-value, in 64 bits: for
		// a value so negative that it wraps, the overflow counts as
		// upward and saturates at the maximum (redis-server 7.0.15 gives
		// 2047 for SET i12 -9223372036854775808).
		room := new(big.Int).Sub(hi, v)
		wraps := signed && !incr && bits < 64 && room.Cmp(big.NewInt(1<<63-1)) > 0
		if v.Cmp(lo) < 0 && !wraps {
			return lo.Int64(), true
		}
		if !signed {
			return int64(hi.Uint64()), true
		}
		return hi.Int64(), true
	}
	mod := new(big.Int).Lsh(big.NewInt(1), bits)
	w := new(big.Int).Mod(v, mod)
	if signed && w.Cmp(hi) > 0 {
		w.Sub(w, mod)
	}
	if !signed {
		return int64(w.Uint64()), true
	}
	return w.Int64(), true
}

// Ensure that the overflow rules of BITFIELD agree with exact arithmetic for
// every width, mode and edge value: 200,000 random cases, a tenth of them
// with -short (as CI's race step runs it: the cases are arithmetic on one
// goroutine, which the race detector only slows).
func TestBitFieldOverflow(t *testing.T) {
	cases := 200_000
	if testing.Short() {
		cases = 20_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, -1, 2, -2, 1<<62 - 1, -1 << 62, 1<<63 - 1, -1 << 63, 100, -100}
	pick := func() int64 {
		if rng.IntN(2) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return int64(rng.Uint64()) >> rng.IntN(64)
	}
	for range cases {
		signed := rng.IntN(2) == 0
		bits := uint(1 + rng.IntN(63))
		if signed {
			bits = uint(1 + rng.IntN(64))
		}
		op := BitFieldOp{Signed: signed, Bits: bits, Kind: BitFieldSet, Overflow: Overflow(rng.IntN(3)), Value: pick()}
		if rng.IntN(2) == 0 {
			op.Kind = BitFieldIncrBy
		}
		v := make([]byte, 9)
		putFieldBits(v, 3, bits, uint64(pick()))
		old := readField(v, BitFieldOp{Signed: signed, Bits: bits, Offset: 3})
		op.Offset = 3
		want, overflow := refField(signed, bits, old, op.Value, op.Kind == BitFieldIncrBy, op.Overflow)
		r, _ := writeField(v, op)
		got := readField(v, BitFieldOp{Signed: signed, Bits: bits, Offset: 3})
		switch {
		case overflow && op.Overflow == OverflowFail:
			if !r.Null || got != old {
				t.Fatalf("%+v old %d: FAIL gave %+v, stored %d", op, old, r, got)
			}
		case got != want:
			t.Fatalf("%+v old %d: stored %d, want %d", op, old, got, want)
		case op.Kind == BitFieldIncrBy && r.Value != want, op.Kind == BitFieldSet && r.Value != old:
			t.Fatalf("%+v old %d: reply %d", op, old, r.Value)
		}
	}
}
