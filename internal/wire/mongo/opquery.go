package mongo

import (
	"bytes"
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// opQuery is a decoded legacy OP_QUERY. mayfly answers it only for the
// handshake commands on a "<db>.$cmd" namespace, as MongoDB 6.0 and later
// do; drivers send their first hello this way.
type opQuery struct {
	header             msgHeader
	flags              int32
	fullCollectionName string
	numberToSkip       int32
	numberToReturn     int32
	query              bson.Raw
	// returnFieldsSelector is optional; nil when absent.
	returnFieldsSelector bson.Raw
}

// decodeOpQuery decodes the OP_QUERY frame (header included). Every error is
// answered with an OP_REPLY, since the frame itself was read whole.
func decodeOpQuery(frame []byte) (*opQuery, *protocolError) {
	q := &opQuery{header: readHeader(frame)}
	b := frame[headerLen:]
	if len(b) < 4 {
		return nil, protoErr(mongoerr.ProtocolError, "OP_QUERY is too short to hold its flags")
	}
	q.flags = int32(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return nil, protoErr(mongoerr.ProtocolError, "OP_QUERY namespace is not terminated")
	}
	q.fullCollectionName = string(b[:i])
	b = b[i+1:]
	if len(b) < 8 {
		return nil, protoErr(mongoerr.ProtocolError, "OP_QUERY is too short to hold numberToSkip and numberToReturn")
	}
	q.numberToSkip = int32(binary.LittleEndian.Uint32(b))
	q.numberToReturn = int32(binary.LittleEndian.Uint32(b[4:]))
	b = b[8:]
	doc, rest, err := readDocument(b, maxBSONInternalSize)
	if err != nil {
		return nil, asProtocolError(err)
	}
	q.query = doc
	if len(rest) > 0 {
		sel, rest2, err := readDocument(rest, maxBSONInternalSize)
		if err != nil {
			return nil, asProtocolError(err)
		}
		if len(rest2) > 0 {
			return nil, protoErr(mongoerr.ProtocolError, "OP_QUERY has %d bytes after its documents", len(rest2))
		}
		q.returnFieldsSelector = sel
	}
	return q, nil
}

// encode returns the message's bytes.
func (q *opQuery) encode() []byte {
	out := make([]byte, 0, headerLen+4+len(q.fullCollectionName)+1+8+len(q.query)+len(q.returnFieldsSelector))
	out = appendHeader(out, q.header)
	out = binary.LittleEndian.AppendUint32(out, uint32(q.flags))
	out = append(out, q.fullCollectionName...)
	out = append(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(q.numberToSkip))
	out = binary.LittleEndian.AppendUint32(out, uint32(q.numberToReturn))
	out = append(out, q.query...)
	out = append(out, q.returnFieldsSelector...)
	setLength(out)
	return out
}

// commandDB returns the database of a "<db>.$cmd" namespace.
func (q *opQuery) commandDB() (string, bool) {
	return strings.CutSuffix(q.fullCollectionName, ".$cmd")
}

// command returns the command document: the query itself, or its $query
// (or query) field when a driver wrapped it with read preference metadata.
func (q *opQuery) command() bson.Raw {
	first, err := q.query.IndexErr(0)
	if err != nil {
		return q.query
	}
	if k := first.Key(); k == "$query" || k == "query" {
		if d, ok := first.Value().DocumentOK(); ok {
			return d
		}
	}
	return q.query
}

// OP_REPLY response flags.
const (
	replyQueryFailure int32 = 1 << 1
	replyAwaitCapable int32 = 1 << 3
)

// opReply is a legacy OP_REPLY, the answer to an OP_QUERY.
type opReply struct {
	header         msgHeader
	flags          int32
	cursorID       int64
	startingFrom   int32
	numberReturned int32
	documents      []bson.Raw
}

// appendOpReply appends an OP_REPLY holding one document to dst. MongoDB
// sets AwaitCapable on every command reply, and QueryFailure when the
// query itself (not a command) failed.
func appendOpReply(dst []byte, requestID, responseTo int32, flags int32, doc []byte) []byte {
	r := opReply{
		header:         msgHeader{requestID: requestID, responseTo: responseTo, opCode: opCodeReply},
		flags:          flags,
		numberReturned: 1,
		documents:      []bson.Raw{doc},
	}
	return r.appendTo(dst)
}

func (r *opReply) appendTo(dst []byte) []byte {
	start := len(dst)
	h := r.header
	h.opCode = opCodeReply
	dst = appendHeader(dst, h)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.flags))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.cursorID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.startingFrom))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(r.numberReturned))
	for _, d := range r.documents {
		dst = append(dst, d...)
	}
	setLength(dst[start:])
	return dst
}

// decodeOpReply decodes an OP_REPLY frame. The server never receives one;
// tests use it to read the server's answers.
func decodeOpReply(frame []byte) (*opReply, *protocolError) {
	r := &opReply{header: readHeader(frame)}
	b := frame[headerLen:]
	if len(b) < 20 {
		return nil, protoErr(mongoerr.ProtocolError, "OP_REPLY is too short")
	}
	r.flags = int32(binary.LittleEndian.Uint32(b))
	r.cursorID = int64(binary.LittleEndian.Uint64(b[4:]))
	r.startingFrom = int32(binary.LittleEndian.Uint32(b[12:]))
	r.numberReturned = int32(binary.LittleEndian.Uint32(b[16:]))
	b = b[20:]
	for len(b) > 0 {
		doc, rest, err := readDocument(b, maxBSONInternalSize)
		if err != nil {
			return nil, asProtocolError(err)
		}
		r.documents = append(r.documents, doc)
		b = rest
	}
	if int(r.numberReturned) != len(r.documents) {
		return nil, protoErr(mongoerr.ProtocolError, "OP_REPLY numberReturned %d but %d documents", r.numberReturned, len(r.documents))
	}
	return r, nil
}
