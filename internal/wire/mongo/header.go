package mongo

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// opCode is the kind of a wire protocol message.
type opCode int32

// The opcodes mayfly reads or writes. The legacy write opcodes are listed so
// that logs can name them; they were removed from MongoDB in 6.0 and get no
// reply, as in MongoDB.
const (
	opCodeReply       opCode = 1
	opCodeUpdate      opCode = 2001
	opCodeInsert      opCode = 2002
	opCodeQuery       opCode = 2004
	opCodeGetMore     opCode = 2005
	opCodeDelete      opCode = 2006
	opCodeKillCursors opCode = 2007
	opCodeCompressed  opCode = 2012
	opCodeMsg         opCode = 2013
)

// String returns MongoDB's name of the opcode.
func (c opCode) String() string {
	switch c {
	case opCodeReply:
		return "OP_REPLY"
	case opCodeUpdate:
		return "OP_UPDATE"
	case opCodeInsert:
		return "OP_INSERT"
	case opCodeQuery:
		return "OP_QUERY"
	case opCodeGetMore:
		return "OP_GET_MORE"
	case opCodeDelete:
		return "OP_DELETE"
	case opCodeKillCursors:
		return "OP_KILL_CURSORS"
	case opCodeCompressed:
		return "OP_COMPRESSED"
	case opCodeMsg:
		return "OP_MSG"
	default:
		return fmt.Sprintf("opcode(%d)", int32(c))
	}
}

// Limits of the wire protocol, as MongoDB reports them in hello.
const (
	// headerLen is the size of the standard message header.
	headerLen = 16
	// MaxMessageSizeBytes is the largest message accepted or sent.
	MaxMessageSizeBytes = 48_000_000
	// MaxBSONObjectSize is the largest document a client may store.
	MaxBSONObjectSize = 16 * 1024 * 1024
	// maxBSONInternalSize is the largest document on the wire: a command
	// document may exceed MaxBSONObjectSize by 16 KiB so that a maximal user
	// document fits inside it (MongoDB's BSONObjMaxInternalSize).
	maxBSONInternalSize = MaxBSONObjectSize + 16*1024
	// MaxWriteBatchSize is the largest number of statements in one write
	// command.
	MaxWriteBatchSize = 100_000
)

// msgHeader is the standard header that starts every message.
type msgHeader struct {
	length     int32
	requestID  int32
	responseTo int32
	opCode     opCode
}

func readHeader(b []byte) msgHeader {
	return msgHeader{
		length:     int32(binary.LittleEndian.Uint32(b[0:])),
		requestID:  int32(binary.LittleEndian.Uint32(b[4:])),
		responseTo: int32(binary.LittleEndian.Uint32(b[8:])),
		opCode:     opCode(binary.LittleEndian.Uint32(b[12:])),
	}
}

func appendHeader(dst []byte, h msgHeader) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.length))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.requestID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.responseTo))
	return binary.LittleEndian.AppendUint32(dst, uint32(h.opCode))
}

// setLength writes len(msg) into the header at the start of msg.
func setLength(msg []byte) {
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
}

// errFrameLength reports a message whose header declares an impossible
// length. The stream cannot be resynchronised, so the connection is closed,
// as MongoDB does.
var errFrameLength = errors.New("mongo: invalid message length")

// firstChunk is the most readFrame allocates before the bytes arrive: a
// client that declares a 48 MB message and sends nothing costs no more.
const firstChunk = 64 * 1024

// readFrame reads one whole message (header included) from r. The declared
// length is checked before anything is allocated, and the buffer grows only
// as bytes arrive. It returns io.EOF when r ends cleanly between messages
// and io.ErrUnexpectedEOF when a message is cut short.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int32(binary.LittleEndian.Uint32(hdr[:]))
	if n < headerLen || n > MaxMessageSizeBytes {
		return nil, fmt.Errorf("%w: %d is invalid, min %d max %d", errFrameLength, n, headerLen, MaxMessageSizeBytes)
	}
	buf := make([]byte, headerLen, min(int(n), firstChunk))
	copy(buf, hdr[:])
	for len(buf) < int(n) {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(int(n), 2*cap(buf)))
			copy(grown, buf)
			buf = grown
		}
		k, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}
