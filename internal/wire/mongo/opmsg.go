package mongo

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// OP_MSG flag bits. The low 16 bits are required: a receiver must refuse
// a message with a required bit it does not know. The high 16 are optional.
const (
	flagChecksumPresent uint32 = 1 << 0
	flagMoreToCome      uint32 = 1 << 1
	flagExhaustAllowed  uint32 = 1 << 16

	requiredFlagMask  uint32 = 0xffff
	supportedRequired        = flagChecksumPresent | flagMoreToCome
)

// Section kinds of an OP_MSG.
const (
	sectionBody     byte = 0
	sectionSequence byte = 1
)

// castagnoli is the CRC-32C table of the OP_MSG checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// section is one section of an OP_MSG: a body (kind 0, exactly one
// document) or a document sequence (kind 1, an identifier and zero or more
// documents).
type section struct {
	kind       byte
	identifier string
	docs       []bson.Raw
}

// opMsg is a decoded OP_MSG. Decoding keeps everything needed to re-encode
// the same bytes: the header, the flags, the sections in order and the
// checksum.
type opMsg struct {
	header   msgHeader
	flags    uint32
	sections []section
	checksum uint32

	// Backing store of a message's first sections and of its body's
	// one-document slice, so that decoding the common message (a body,
	// perhaps one sequence) allocates only the opMsg.
	sectionBuf [2]section
	bodyBuf    [1]bson.Raw
	// seqBuf backs the documents of the first sequence while it holds one
	// (a driver's insertOne, updateOne or deleteOne).
	seqBuf [1]bson.Raw
}

// protocolError is a message that cannot be processed. fatal errors close
// the connection without a reply, as MongoDB does for the codes in its
// ConnectionFatalMessageParseError category; the others are answered with an
// error reply when the message asks for one.
type protocolError struct {
	err   *mongoerr.Error
	fatal bool
}

func (e *protocolError) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.err.Code.Name(), e.err.Code, e.err.Message)
}

func protoErr(code mongoerr.Code, format string, args ...any) *protocolError {
	return &protocolError{err: errorf(code, format, args...)}
}

func fatalErr(code mongoerr.Code, format string, args ...any) *protocolError {
	return &protocolError{err: errorf(code, format, args...), fatal: true}
}

// asProtocolError wraps a document validation error.
func asProtocolError(err error) *protocolError {
	if pe, ok := err.(*protocolError); ok {
		return pe
	}
	e, _ := asMongoError(err)
	return &protocolError{err: e}
}

// decodeOpMsg decodes the OP_MSG frame (header included). Validation
// follows MongoDB's OpMsg::parse: unknown required flags and a bad checksum
// are fatal; a missing or repeated body, an unknown section kind, a
// malformed or oversized document, a repeated sequence or a field in both
// the body and a sequence are answered with an error.
func decodeOpMsg(frame []byte) (*opMsg, *protocolError) {
	m := &opMsg{header: readHeader(frame)}
	m.sections = m.sectionBuf[:0]
	b := frame[headerLen:]
	if len(b) < 4 {
		return nil, fatalErr(mongoerr.ProtocolError, "OP_MSG is too short to hold its flags")
	}
	m.flags = binary.LittleEndian.Uint32(b)
	if m.flags&requiredFlagMask&^supportedRequired != 0 {
		return nil, fatalErr(mongoerr.IllegalOpMsgFlag, "Message contains illegal flags value: Ob%032b", m.flags)
	}
	b = b[4:]
	if m.flags&flagChecksumPresent != 0 {
		if len(b) < 4 {
			return nil, fatalErr(mongoerr.ProtocolError, "OP_MSG is too short to hold its checksum")
		}
		m.checksum = binary.LittleEndian.Uint32(b[len(b)-4:])
		if crc32.Checksum(frame[:len(frame)-4], castagnoli) != m.checksum {
			return nil, fatalErr(mongoerr.ChecksumMismatch, "OP_MSG checksum does not match contents")
		}
		b = b[:len(b)-4]
	}
	haveBody, seqBufUsed := false, false
	for len(b) > 0 {
		kind := b[0]
		b = b[1:]
		switch kind {
		case sectionBody:
			if haveBody {
				return nil, protoErr(mongoerr.Location40430, "Multiple body sections in message")
			}
			haveBody = true
			doc, rest, err := readDocument(b, maxBSONInternalSize)
			if err != nil {
				return nil, asProtocolError(err)
			}
			m.bodyBuf[0] = doc
			m.sections = append(m.sections, section{kind: sectionBody, docs: m.bodyBuf[:]})
			b = rest
		case sectionSequence:
			var docs []bson.Raw
			if !seqBufUsed {
				docs, seqBufUsed = m.seqBuf[:0:1], true
			}
			s, rest, perr := decodeSequence(b, docs)
			if perr != nil {
				return nil, perr
			}
			for _, prev := range m.sections {
				if prev.kind == sectionSequence && prev.identifier == s.identifier {
					return nil, protoErr(mongoerr.Location40431, "Duplicate document sequence: %s", s.identifier)
				}
			}
			m.sections = append(m.sections, s)
			b = rest
		default:
			return nil, protoErr(mongoerr.Location40432, "Unknown section kind %d", kind)
		}
	}
	if !haveBody {
		return nil, protoErr(mongoerr.Location40587, "OP_MSG messages must have a body")
	}
	body := m.body()
	for _, s := range m.sections {
		if s.kind != sectionSequence {
			continue
		}
		if _, err := body.LookupErr(s.identifier); err == nil {
			return nil, protoErr(mongoerr.Location40433, "Duplicate field between body and document sequence %s", s.identifier)
		}
	}
	return m, nil
}

// decodeSequence decodes a kind 1 section after its kind byte, appending
// its documents to docs (which may be nil).
func decodeSequence(b []byte, docs []bson.Raw) (section, []byte, *protocolError) {
	if len(b) < 4 {
		return section{}, nil, protoErr(mongoerr.ProtocolError, "document sequence size is missing")
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	if n < 5 || n > len(b) {
		return section{}, nil, protoErr(mongoerr.ProtocolError, "document sequence size %d does not fit the %d bytes left", n, len(b))
	}
	seq, rest := b[4:n], b[n:]
	i := 0
	for i < len(seq) && seq[i] != 0 {
		i++
	}
	if i == len(seq) {
		return section{}, nil, protoErr(mongoerr.ProtocolError, "document sequence identifier is not terminated")
	}
	s := section{kind: sectionSequence, identifier: sequenceID(seq[:i]), docs: docs}
	seq = seq[i+1:]
	for len(seq) > 0 {
		doc, r, err := readDocument(seq, maxBSONInternalSize)
		if err != nil {
			return section{}, nil, asProtocolError(err)
		}
		s.docs = append(s.docs, doc)
		seq = r
	}
	return s, rest, nil
}

// sequenceID returns a sequence's identifier, without allocating for the
// ones drivers send.
func sequenceID(b []byte) string {
	switch string(b) {
	case "documents":
		return "documents"
	case "updates":
		return "updates"
	case "deletes":
		return "deletes"
	}
	return string(b)
}

// body returns the kind 0 document.
func (m *opMsg) body() bson.Raw {
	for _, s := range m.sections {
		if s.kind == sectionBody {
			return s.docs[0]
		}
	}
	return nil
}

// encode returns the message's bytes: the header (its length recomputed),
// flags, sections and, when the flag is set, a freshly computed checksum.
func (m *opMsg) encode() []byte {
	size := headerLen + 4
	for _, s := range m.sections {
		size += 1
		if s.kind == sectionSequence {
			size += 4 + len(s.identifier) + 1
		}
		for _, d := range s.docs {
			size += len(d)
		}
	}
	if m.flags&flagChecksumPresent != 0 {
		size += 4
	}
	out := make([]byte, 0, size)
	out = appendHeader(out, m.header)
	out = binary.LittleEndian.AppendUint32(out, m.flags)
	for _, s := range m.sections {
		out = append(out, s.kind)
		if s.kind == sectionSequence {
			start := len(out)
			out = binary.LittleEndian.AppendUint32(out, 0)
			out = append(out, s.identifier...)
			out = append(out, 0)
			for _, d := range s.docs {
				out = append(out, d...)
			}
			binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
			continue
		}
		out = append(out, s.docs[0]...)
	}
	if m.flags&flagChecksumPresent != 0 {
		binary.LittleEndian.PutUint32(out, uint32(len(out)+4))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
		return out
	}
	setLength(out)
	return out
}

// appendChecksum sets checksumPresent on the OP_MSG msg and appends its
// CRC-32C.
func appendChecksum(msg []byte) []byte {
	flags := binary.LittleEndian.Uint32(msg[headerLen:])
	binary.LittleEndian.PutUint32(msg[headerLen:], flags|flagChecksumPresent)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)+4))
	return binary.LittleEndian.AppendUint32(msg, crc32.Checksum(msg, castagnoli))
}
