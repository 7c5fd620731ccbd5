package storage

import (
	"encoding/binary"
	"fmt"
)

// reprHeaderLen is the length of a batch representation's header: the
// sequence number (8 bytes) and the count of its records (4 bytes, little
// endian), in Pebble's documented batch format; the records follow.
const reprHeaderLen = 12

// AppendRepr returns dst, a batch representation (or empty, for none yet),
// followed by the records of the batch representation repr, with the
// header's count made the sum of both: applying the result applies dst's
// writes, then repr's, as one batch. dst's storage may be reused.
func AppendRepr(dst, repr []byte) ([]byte, error) {
	if len(repr) < reprHeaderLen {
		return nil, fmt.Errorf("storage: batch representation of %d bytes", len(repr))
	}
	if len(dst) == 0 {
		return append(dst[:0], repr...), nil
	}
	if len(dst) < reprHeaderLen {
		return nil, fmt.Errorf("storage: batch representation of %d bytes", len(dst))
	}
	count := uint64(binary.LittleEndian.Uint32(dst[8:reprHeaderLen])) +
		uint64(binary.LittleEndian.Uint32(repr[8:reprHeaderLen]))
	if count > 1<<32-1 {
		return nil, fmt.Errorf("storage: joined batch of %d records", count)
	}
	binary.LittleEndian.PutUint32(dst[8:reprHeaderLen], uint32(count))
	return append(dst, repr[reprHeaderLen:]...), nil
}
