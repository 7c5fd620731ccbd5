package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
)

// bitmapCommands lists the commands on bitmaps and HyperLogLogs, both kept
// in string values; each is defined in its own file (cmd_<name>.go).
func bitmapCommands() []*command {
	return []*command{
		// bitmaps
		cmdBitCount, cmdBitField, cmdBitFieldRO, cmdBitOp, cmdBitPos, cmdGetBit, cmdSetBit,
		// hyperloglog
		cmdPFAdd, cmdPFCount, cmdPFDebug, cmdPFMerge, cmdPFSelfTest,
	}
}

var errBitOffset = replyErr("ERR bit offset is not an integer or out of range")

// parseBitOffset parses a bit offset, which must be at least 0 and address
// a byte below proto-max-bulk-len. With bits > 0 (BITFIELD) an offset
// written "#n" means n*bits.
func parseBitOffset(x *cmdCtx, b []byte, bits uint) (uint64, error) {
	hash := bits > 0 && len(b) > 0 && b[0] == '#'
	if hash {
		b = b[1:]
	}
	n, ok := kv.ParseInt(b)
	if !ok {
		return 0, errBitOffset
	}
	if hash {
		n *= int64(bits)
	}
	if n < 0 || n>>3 >= x.tx.MaxStringSize() {
		return 0, errBitOffset
	}
	return uint64(n), nil
}

// parseBitUnit parses BITCOUNT's and BITPOS's BYTE|BIT, reporting BIT.
func parseBitUnit(b []byte) (bool, error) {
	switch {
	case argEq(b, "bit"):
		return true, nil
	case argEq(b, "byte"):
		return false, nil
	}
	return false, errSyntax
}

// hllSparseMax is hll-sparse-max-bytes: the longest a sparse HyperLogLog
// may grow before it turns dense.
func hllSparseMax(x *cmdCtx) int {
	n, err := strconv.ParseInt(x.s.cfg.get("hll-sparse-max-bytes"), 10, 64)
	if err != nil || n > 1<<31 {
		return 1 << 31
	}
	return int(n)
}
