package rdb

import "hash/crc64"

// Redis's CRC64 is the "Jones" polynomial (0xad93d23594c935a9), reflected,
// with an initial value and final xor of zero. The standard library's
// CRC64 inverts the register before and after, so starting it from all ones
// and inverting its result gives Redis's.
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5) // the polynomial bit-reversed

// checksum returns Redis's CRC64 of b.
func checksum(b []byte) uint64 {
	return ^crc64.Update(^uint64(0), jonesTable, b)
}
