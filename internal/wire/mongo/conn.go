package mongo

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// conn is one client connection. Its goroutine reads a message, processes
// it and sends the reply, one at a time, in order. The connection's context
// is cancelled when the client disconnects, which aborts the request being
// processed: a request still running after watchDelay hands the reading of
// the next message to a watcher goroutine, whose read error on a
// disconnect cancels the context.
type conn struct {
	s      *Server
	nc     net.Conn
	r      *bufio.Reader
	id     int64
	remote string
	log    *slog.Logger
	// authName is the authenticated user ("user@db", or "") for other
	// goroutines: currentOp's $ownOps reads it.
	authName atomic.Pointer[string]

	ctx    context.Context
	cancel context.CancelFunc

	// stopping is set by Shutdown: reading stops at the next message
	// boundary without cancelling the request being processed.
	stopping atomic.Bool

	// The disconnect watch of the request being processed (watch.go).
	watchMu  sync.Mutex
	watch    *time.Timer
	busy     bool // a request is being processed
	watching bool // a watcher goroutine is reading the next message
	closed   bool // serve has returned: no watcher may start
	watched  chan readResult

	out         []byte // reply buffer, reused
	writeFailed bool   // a reply could not be sent: close
	command     string // the command of the message being processed, once known, for logs
	nsBuf       []byte // scratch for the namespace of a command's latency, reused

	// Set by the first hello: the client's metadata, for logs.
	clientMeta bson.Raw
	// sharedMeta points at clientMeta once it is set, for currentOp
	// (other goroutines).
	sharedMeta atomic.Pointer[bson.Raw]
	// user is the authenticated user, nil before authentication; sasl is
	// the SASL conversation in progress.
	user *connUser
	sasl *saslState
	// op is the command being processed, as currentOp reports it
	// (operations.go); the registry's lock guards its fields.
	op operation
}

// metadata returns the client's metadata from its first hello, or nil; it
// may be called from any goroutine.
func (c *conn) metadata() bson.Raw {
	if p := c.sharedMeta.Load(); p != nil {
		return *p
	}
	return nil
}

// maxRetainedBuffer is the largest reply buffer kept between replies.
const maxRetainedBuffer = 1 << 20

func newConn(s *Server, nc net.Conn, id int64) *conn {
	ctx, cancel := context.WithCancel(s.base)
	remote := nc.RemoteAddr().String()
	return &conn{
		s:       s,
		nc:      nc,
		id:      id,
		remote:  remote,
		log:     s.log.With("ctx", connName(id), "remote", remote),
		ctx:     ctx,
		cancel:  cancel,
		watched: make(chan readResult, 1),
	}
}

func connName(id int64) string { return "conn" + strconv.FormatInt(id, 10) }

// stopReading makes reading stop at the next message boundary, so that
// serve returns once the request being processed has been answered.
func (c *conn) stopReading() {
	c.stopping.Store(true)
	c.nc.SetReadDeadline(time.Now())
}

// serve runs the connection until the client disconnects, a protocol error
// requires closing it, or the server shuts down.
func (c *conn) serve() {
	c.log.Info("Connection accepted", "connectionId", c.id, "connectionCount", c.s.connectionCount())
	c.r = bufio.NewReaderSize(c.nc, 32*1024)
	defer func() {
		c.endWatch()
		c.nc.Close()
		c.cancel()
		c.log.Info("Connection ended", "connectionId", c.id)
	}()
	frame, ok := c.readMessage()
	for ok {
		c.startWatch()
		keep := c.process(frame) && !c.writeFailed
		watched := c.stopWatch()
		if !keep {
			return
		}
		if cap(c.out) > maxRetainedBuffer {
			c.out = nil
		}
		if watched {
			r := c.nextWatched()
			frame, ok = r.frame, r.ok
		} else {
			frame, ok = c.readMessage()
		}
	}
}

// readMessage reads one whole message; ok is false when the connection
// must end. A read error ends it: the client's disconnect cancels the
// connection context (aborting the request in progress, when a watcher
// reads), Shutdown's deadline does not. An idle connection waits for its
// next message without a deadline, as in MongoDB; once a message's first
// byte is in, the rest of it must arrive within the frame timeout.
func (c *conn) readMessage() (frame []byte, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic while reading a message, closing the connection", "panic", r, "stack", string(debug.Stack()))
			c.cancel()
			frame, ok = nil, false
		}
	}()
	r := c.r
	ft := c.s.opts.FrameTimeout
	_, err := r.Peek(1)
	if err == nil {
		// A message already wholly buffered (as a driver's usually
		// arrives) is read without blocking, so needs no deadline.
		armed := ft > 0 && !frameBuffered(r)
		if armed {
			c.setReadDeadline(time.Now().Add(ft))
		}
		frame, err = readFrame(r)
		if err == nil && armed {
			c.setReadDeadline(time.Time{})
		}
	}
	if err != nil {
		switch {
		case c.stopping.Load() && errors.Is(err, os.ErrDeadlineExceeded):
			return nil, false
		case errors.Is(err, os.ErrDeadlineExceeded):
			c.log.Info("client did not send the rest of its message within the frame timeout, ending connection",
				"frameTimeout", ft.String(), "buffered", r.Buffered())
		case errors.Is(err, errFrameLength):
			c.log.Warn("recv(): message length is invalid, closing the connection", "error", err)
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		case errors.Is(err, io.ErrUnexpectedEOF):
			c.log.Info("client disconnected in the middle of a message")
		default:
			c.log.Info("error receiving request from client, ending connection", "error", err)
		}
		c.cancel()
		return nil, false
	}
	c.s.metrics.bytesIn.Add(int64(len(frame)))
	return frame, true
}

// frameBuffered reports whether r holds a whole message with a valid
// length, which readFrame then takes without reading the connection.
func frameBuffered(r *bufio.Reader) bool {
	if r.Buffered() < headerLen {
		return false
	}
	b, err := r.Peek(4)
	if err != nil {
		return false
	}
	n := int32(binary.LittleEndian.Uint32(b))
	return n >= headerLen && n <= MaxMessageSizeBytes && int(n) <= r.Buffered()
}

// setReadDeadline sets the read deadline unless Shutdown asked the
// connection to stop, whose deadline of now must stay.
func (c *conn) setReadDeadline(t time.Time) {
	c.nc.SetReadDeadline(t)
	if c.stopping.Load() {
		c.nc.SetReadDeadline(time.Now())
	}
}

// process handles one message and reports whether the connection stays
// open. Every failure that can be answered is answered; only what
// MongoDB treats as fatal closes the connection. It is where a panic
// anywhere in serving the message is recovered (a command handler's own
// panic is already answered by run).
func (c *conn) process(frame []byte) (keep bool) {
	h := readHeader(frame)
	c.command = ""
	defer func() {
		if r := recover(); r != nil {
			keep = c.recoverMessage(h, frame, r, debug.Stack())
		}
	}()
	c.s.metrics.requests.Add(1)
	switch h.opCode {
	case opCodeMsg:
		return c.processMsg(h, frame)
	case opCodeQuery:
		return c.processQuery(h, frame)
	case opCodeCompressed:
		return c.processCompressed(h, frame)
	default:
		// MongoDB logs and ignores every other opcode: the legacy write
		// opcodes and OP_GET_MORE/OP_KILL_CURSORS were fire-and-forget or
		// are removed, and an unknown opcode has no reply format.
		c.log.Warn("Operation is not supported", "opCode", h.opCode.String(), "requestId", h.requestID)
		return true
	}
}

// recoverMessage handles a panic while serving the message of header h:
// it logs the panic with the command (when it was known) and answers
// InternalError when the message's protocol has a reply for it. A message
// that expects no reply (OP_MSG with moreToCome) or whose reply cannot be
// built closes the connection, so that the client notices. It reports
// whether the connection stays open.
func (c *conn) recoverMessage(h msgHeader, frame []byte, r any, stack []byte) (keep bool) {
	command := c.command
	if command == "" {
		command = "<unknown>"
	}
	c.log.Error("panic while processing a message", "command", command, "opCode", h.opCode.String(),
		"requestId", h.requestID, "length", len(frame), "panic", r, "stack", string(stack))
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("cannot answer a message that panicked, closing the connection", "panic", r)
			keep = false
		}
	}()
	e := errorf(mongoerr.InternalError, "internal error while processing the message")
	if c.command != "" {
		e = errorf(mongoerr.InternalError, "internal error while running command %s", c.command)
	}
	switch h.opCode {
	case opCodeMsg:
		if len(frame) < headerLen+4 {
			return false
		}
		flags := binary.LittleEndian.Uint32(frame[headerLen:])
		if flags&flagMoreToCome != 0 {
			return false
		}
		c.writeMsgReply(h.requestID, errorDoc(e), flags&flagChecksumPresent != 0)
		return !c.writeFailed
	case opCodeQuery:
		c.writeQueryReply(h.requestID, replyQueryFailure, bson.D{
			{Key: "$err", Value: e.Message},
			{Key: "code", Value: int32(e.Code)},
			{Key: "ok", Value: 0.0},
		})
		return !c.writeFailed
	default:
		return false
	}
}

// processMsg handles an OP_MSG.
func (c *conn) processMsg(h msgHeader, frame []byte) bool {
	var flags uint32
	if len(frame) >= headerLen+4 {
		flags = uint32(frame[16]) | uint32(frame[17])<<8 | uint32(frame[18])<<16 | uint32(frame[19])<<24
	}
	moreToCome := flags&flagMoreToCome != 0
	m, perr := decodeOpMsg(frame)
	if perr != nil {
		if perr.fatal {
			c.log.Warn("invalid message, closing the connection", "error", perr.Error(), "requestId", h.requestID)
			return false
		}
		c.log.Info("Assertion while parsing command", "error", perr.Error(), "requestId", h.requestID)
		if !moreToCome {
			c.writeMsgReply(h.requestID, errorDoc(perr.err), flags&flagChecksumPresent != 0)
		}
		return true
	}
	req, err := newMsgRequest(c, m)
	if err != nil {
		e, _ := asMongoError(err)
		if !moreToCome {
			c.writeMsgReply(h.requestID, errorDoc(e), flags&flagChecksumPresent != 0)
		}
		return true
	}
	req.exhaust = flags&flagExhaustAllowed != 0 && !moreToCome
	c.command = req.name
	reply := c.s.clock.stamp(c.run(req))
	if moreToCome {
		return true
	}
	c.exhaust(h.requestID, req, reply, flags&flagChecksumPresent != 0)
	return true
}

// exhaust sends the reply to the request whose id is responseTo and, while
// the command streams (a hello with exhaustAllowed sets req.next), runs
// the next command and sends its reply, each with moreToCome and in
// answer to the reply before it, as the OP_MSG specification has it. The
// stream ends with a reply without moreToCome (an error, or the server
// shutting down), or when the client has gone (its reads ended) or a
// reply could not be sent.
func (c *conn) exhaust(responseTo int32, req *request, reply bson.D, checksum bool) {
	for {
		more := req.next != nil && replySucceeded(reply) && !c.stopping.Load() && c.ctx.Err() == nil
		var flags uint32
		if more {
			flags = flagMoreToCome
		}
		responseTo = c.writeMsgReplyFlags(responseTo, flags, reply, checksum)
		if !more || c.writeFailed {
			return
		}
		next, err := newRequest(c, req.db, req.next)
		if err != nil {
			return
		}
		next.exhaust = true
		req = next
		reply = c.s.clock.stamp(c.run(req))
	}
}

// replySucceeded reports whether a command's reply says ok: 1.
func replySucceeded(reply bson.D) bool {
	for _, e := range reply {
		if e.Key == "ok" {
			f, ok := e.Value.(float64)
			return ok && f == 1
		}
	}
	return false
}

// opQueryCommands are the commands MongoDB still accepts over OP_QUERY
// (check_allowed_op_query_cmd.cpp).
var opQueryCommands = map[string]bool{
	"hello": true, "isMaster": true, "ismaster": true, "buildinfo": true, "buildInfo": true,
}

// processQuery handles a legacy OP_QUERY: drivers send their first hello
// this way.
func (c *conn) processQuery(h msgHeader, frame []byte) bool {
	q, perr := decodeOpQuery(frame)
	if perr != nil {
		c.log.Info("Assertion while parsing OP_QUERY", "error", perr.Error(), "requestId", h.requestID)
		c.writeQueryReply(h.requestID, replyQueryFailure, bson.D{
			{Key: "$err", Value: perr.err.Message},
			{Key: "code", Value: int32(perr.err.Code)},
			{Key: "ok", Value: 0.0},
		})
		return true
	}
	db, ok := q.commandDB()
	if !ok {
		c.writeQueryReply(h.requestID, replyQueryFailure, bson.D{
			{Key: "$err", Value: "OP_QUERY is no longer supported. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal"},
			{Key: "code", Value: int32(mongoerr.Location5739101)},
			{Key: "ok", Value: 0.0},
		})
		return true
	}
	cmd := q.command()
	req, err := newRequest(c, db, cmd)
	if err == nil {
		c.command = req.name
	}
	var reply bson.D
	switch {
	case err != nil:
		e, _ := asMongoError(err)
		reply = errorDoc(e)
	case !opQueryCommands[req.name]:
		reply = errorDoc(errorf(mongoerr.UnsupportedOpQueryCommand,
			"Unsupported OP_QUERY command: %s. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal",
			req.name))
	default:
		req.opQuery = true
		reply = c.run(req)
	}
	c.writeQueryReply(h.requestID, replyAwaitCapable, reply)
	return true
}

// processCompressed handles an OP_COMPRESSED. mayfly negotiates no
// compressor, so only the noop compressor is unwrapped; any other is
// answered with MongoDB's error in the original message's protocol.
func (c *conn) processCompressed(h msgHeader, frame []byte) bool {
	cm, perr := decodeOpCompressed(frame)
	if perr != nil {
		c.log.Warn("invalid compressed message, closing the connection", "error", perr.Error())
		return false
	}
	inner, perr := cm.decompress()
	if perr == nil {
		switch cm.originalOpCode {
		case opCodeMsg, opCodeQuery:
			return c.process(inner)
		}
		perr = protoErr(mongoerr.ProtocolError, "Unsupported compressed opcode %d", int32(cm.originalOpCode))
	}
	c.log.Warn("refused compressed message", "error", perr.Error(), "compressorId", cm.compressorID, "originalOpCode", cm.originalOpCode.String())
	switch cm.originalOpCode {
	case opCodeMsg:
		c.writeMsgReply(h.requestID, errorDoc(perr.err), false)
		return true
	case opCodeQuery:
		c.writeQueryReply(h.requestID, replyQueryFailure, bson.D{
			{Key: "$err", Value: perr.err.Message},
			{Key: "code", Value: int32(perr.err.Code)},
			{Key: "ok", Value: 0.0},
		})
		return true
	default:
		// No reply format is known for the original opcode.
		return false
	}
}

// marshalReply encodes a reply document; a document that cannot be
// encoded, or is larger than the protocol allows, becomes an error reply.
func (c *conn) marshalReply(reply bson.D) []byte {
	b, err := bson.Marshal(reply)
	if err != nil {
		c.log.Error("cannot encode reply", "error", err)
		b, _ = bson.Marshal(errorDoc(errorf(mongoerr.InternalError, "cannot encode reply: %v", err)))
	}
	if len(b) > maxBSONInternalSize {
		b, _ = bson.Marshal(errorDoc(errorf(mongoerr.BSONObjectTooLarge,
			"BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(%dMB)",
			len(b), len(b), maxBSONInternalSize, maxBSONInternalSize/(1024*1024))))
	}
	return b
}

// appendReply appends the encoding of reply to dst: by appendDoc when it
// can, which bson.Marshal's result would equal, else by marshalReply.
func (c *conn) appendReply(dst []byte, reply bson.D) []byte {
	start := len(dst)
	if out, ok := appendDoc(dst, reply); ok && len(out)-start <= maxBSONInternalSize {
		return out
	}
	return append(dst[:start], c.marshalReply(reply)...)
}

func (c *conn) writeMsgReply(responseTo int32, reply bson.D, checksum bool) {
	c.writeMsgReplyFlags(responseTo, 0, reply, checksum)
}

// writeMsgReplyFlags sends an OP_MSG reply with flags and returns its
// requestID.
func (c *conn) writeMsgReplyFlags(responseTo int32, flags uint32, reply bson.D, checksum bool) int32 {
	id := c.s.nextReplyID()
	out := appendHeader(c.out[:0], msgHeader{requestID: id, responseTo: responseTo, opCode: opCodeMsg})
	out = binary.LittleEndian.AppendUint32(out, flags)
	out = append(out, sectionBody)
	c.out = c.appendReply(out, reply)
	setLength(c.out)
	if checksum {
		c.out = appendChecksum(c.out)
	}
	c.write()
	return id
}

func (c *conn) writeQueryReply(responseTo int32, flags int32, reply bson.D) {
	body := c.marshalReply(reply)
	c.out = appendOpReply(c.out[:0], c.s.nextReplyID(), responseTo, flags, body)
	c.write()
}

// writeChunk is the most of a reply written under one write deadline.
const writeChunk = 4 << 20

// write sends the reply in c.out. With a frame timeout, each 4 MiB of it
// must be taken by the client within the timeout: a client that stops
// reading its replies is closed instead of holding them forever.
func (c *conn) write() {
	ft := c.s.opts.FrameTimeout
	out := c.out
	for len(out) > 0 {
		chunk := out
		if ft > 0 {
			chunk = out[:min(len(out), writeChunk)]
			c.nc.SetWriteDeadline(time.Now().Add(ft))
		}
		n, err := c.nc.Write(chunk)
		c.s.metrics.bytesOut.Add(int64(n))
		if err != nil {
			c.writeFailed = true
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				c.log.Info("client did not read its reply within the frame timeout, ending connection", "frameTimeout", ft.String())
			case !errors.Is(err, net.ErrClosed):
				c.log.Info("error sending reply", "error", err)
			}
			return
		}
		out = out[n:]
	}
}
