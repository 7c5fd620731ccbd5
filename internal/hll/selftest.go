package hll

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// SelfTest is PFSELFTEST: it checks that random values stored in the
// dense registers read back unchanged and leave their neighbours alone,
// then adds ten million distinct 8-byte elements to a dense and a sparse
// value at once, checking at 1, 10, 100, ... elements that a small sparse
// value stays sparse, that both encodings estimate the same, and that the
// error stays within six standard errors (1 at 10 elements). The error's
// text is the reply, "TESTFAILED ..." as Redis words it.
func SelfTest(seed uint64, sparseMax int) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dense := make([]byte, DenseSize)
	copy(dense, "HYLL")
	r := dense[headerSize:]
	var want [Registers]uint8
	for cycle := 0; cycle < 1000; cycle++ {
		for i := range want {
			want[i] = uint8(rng.Uint32() & regMax)
			densePut(r, i, want[i])
		}
		for i := range want {
			if got := denseGet(r, i); got != want[i] {
				return fmt.Errorf("TESTFAILED Register %d should be %d but is %d", i, want[i], got)
			}
		}
	}
	clear(r)
	sparse := New()
	relerr := 1.04 / math.Sqrt(Registers)
	salt := rng.Uint64()
	checkpoint := int64(1)
	var ele [8]byte
	for j := int64(1); j <= 10_000_000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^salt)
		i, c := patLen(ele[:])
		denseSet(r, i, c)
		var err error
		if sparse, _, err = set(sparse, i, c, sparseMax); err != nil {
			return fmt.Errorf("TESTFAILED %v", err)
		}
		if j != checkpoint {
			continue
		}
		if j < int64(sparseMax/2) && IsDense(sparse) {
			return fmt.Errorf("TESTFAILED sparse encoding not used")
		}
		InvalidateCache(dense)
		InvalidateCache(sparse)
		cd, _, err1 := Count(dense)
		cs, _, err2 := Count(sparse)
		if err1 != nil || err2 != nil || cd != cs {
			return fmt.Errorf("TESTFAILED dense/sparse disagree")
		}
		abserr := checkpoint - int64(cd)
		maxerr := uint64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > int64(maxerr) {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, abserr)
		}
		checkpoint *= 10
	}
	return nil
}
