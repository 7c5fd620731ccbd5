package mongo

import (
	"encoding/binary"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// compressorNoop is the identity compressor every MongoDB node has. mayfly
// advertises no compressor in hello, so a well-behaved client never
// compresses; a noop-compressed message is unwrapped, any other compressor
// is refused with MongoDB's error.
const compressorNoop byte = 0

// opCompressed is the header of an OP_COMPRESSED message.
type opCompressed struct {
	header           msgHeader
	originalOpCode   opCode
	uncompressedSize int32
	compressorID     byte
	payload          []byte
}

func decodeOpCompressed(frame []byte) (*opCompressed, *protocolError) {
	c := &opCompressed{header: readHeader(frame)}
	b := frame[headerLen:]
	if len(b) < 9 {
		return nil, fatalErr(mongoerr.BadValue, "Invalid compressed message header")
	}
	c.originalOpCode = opCode(binary.LittleEndian.Uint32(b))
	c.uncompressedSize = int32(binary.LittleEndian.Uint32(b[4:]))
	c.compressorID = b[8]
	c.payload = b[9:]
	return c, nil
}

// decompress returns the original message (header included) of a noop
// compressed message, or MongoDB's error for any other compressor.
func (c *opCompressed) decompress() ([]byte, *protocolError) {
	if c.compressorID != compressorNoop {
		return nil, protoErr(mongoerr.InternalError, "Compression algorithm specified in message is not available")
	}
	if c.uncompressedSize < 0 {
		return nil, protoErr(mongoerr.BadValue, "Decompressed message would be negative in size")
	}
	if int64(c.uncompressedSize)+headerLen > MaxMessageSizeBytes {
		return nil, protoErr(mongoerr.BadValue, "Decompressed message would be larger than maximum message size")
	}
	if int(c.uncompressedSize) != len(c.payload) {
		return nil, protoErr(mongoerr.BadValue, "Decompressing message returned less data than expected")
	}
	out := make([]byte, 0, headerLen+len(c.payload))
	h := c.header
	h.opCode = c.originalOpCode
	out = appendHeader(out, h)
	out = append(out, c.payload...)
	setLength(out)
	return out, nil
}
