package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The lean MongoDB client: one connection speaking OP_MSG directly, the
// command document appended into a reused buffer, the reply's body checked
// for ok: 1 and read for the one figure a workload needs. Like the lean
// RESP client it exists so that doc measures the server, not the driver.

// OP_MSG framing (MongoDB's wire protocol).
const (
	opMsgCode          = 2013
	opMsgHeaderLen     = 16
	opMsgChecksumFlag  = 1 << 0
	opMsgMoreToCome    = 1 << 1
	opMsgMaxMessageLen = 48_000_000
)

// ErrMongoProtocol reports a reply that is not a well-formed OP_MSG.
var ErrMongoProtocol = errors.New("bench: malformed OP_MSG reply")

// MongoCommandError is a reply with ok: 0, or a write reply carrying write
// errors.
type MongoCommandError struct {
	Code     int32
	CodeName string
	Message  string
}

func (e *MongoCommandError) Error() string {
	if e.CodeName != "" {
		return fmt.Sprintf("server error %d (%s): %s", e.Code, e.CodeName, e.Message)
	}
	return fmt.Sprintf("server error %d: %s", e.Code, e.Message)
}

// appendOpMsg appends an OP_MSG of flagBits 0 whose one section (kind 0)
// is body.
func appendOpMsg(dst []byte, requestID int32, body []byte) []byte {
	n := opMsgHeaderLen + 4 + 1 + len(body)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(requestID))
	dst = binary.LittleEndian.AppendUint32(dst, 0) // responseTo
	dst = binary.LittleEndian.AppendUint32(dst, opMsgCode)
	dst = binary.LittleEndian.AppendUint32(dst, 0) // flagBits
	dst = append(dst, 0)                           // section kind 0
	return append(dst, body...)
}

// readOpMsg reads one message from r into buf (grown as needed) and
// returns its body document, which aliases buf. The message must be an
// OP_MSG answering requestID.
func readOpMsg(r io.Reader, buf []byte, requestID int32) (bson.Raw, []byte, error) {
	var hdr [opMsgHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, buf, fmt.Errorf("read reply header: %w", err)
	}
	n := int64(int32(binary.LittleEndian.Uint32(hdr[0:])))
	responseTo := int32(binary.LittleEndian.Uint32(hdr[8:]))
	op := int32(binary.LittleEndian.Uint32(hdr[12:]))
	if n < opMsgHeaderLen+4+1+5 || n > opMsgMaxMessageLen {
		return nil, buf, fmt.Errorf("%w: message length %d", ErrMongoProtocol, n)
	}
	if op != opMsgCode {
		return nil, buf, fmt.Errorf("%w: opcode %d, want OP_MSG", ErrMongoProtocol, op)
	}
	if responseTo != requestID {
		return nil, buf, fmt.Errorf("%w: reply to request %d, want %d", ErrMongoProtocol, responseTo, requestID)
	}
	rest := int(n) - opMsgHeaderLen
	if cap(buf) < rest {
		buf = make([]byte, rest, max(rest, 2*cap(buf)))
	}
	buf = buf[:rest]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, buf, fmt.Errorf("read reply: %w", unexpectedEOF(err))
	}
	body, err := opMsgBody(buf)
	return body, buf, err
}

// opMsgBody returns the kind 0 section of an OP_MSG whose header is
// stripped, skipping document sequences and the checksum.
func opMsgBody(b []byte) (bson.Raw, error) {
	flags := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if flags&opMsgMoreToCome != 0 {
		return nil, fmt.Errorf("%w: moreToCome set on a reply to a request that did not allow it", ErrMongoProtocol)
	}
	if flags&opMsgChecksumFlag != 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: too short to hold its checksum", ErrMongoProtocol)
		}
		b = b[:len(b)-4]
	}
	var body bson.Raw
	for len(b) > 0 {
		kind := b[0]
		b = b[1:]
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: section of kind %d cut short", ErrMongoProtocol, kind)
		}
		size := int(int32(binary.LittleEndian.Uint32(b)))
		if size < 5 || size > len(b) {
			return nil, fmt.Errorf("%w: section of kind %d claims %d bytes, %d left", ErrMongoProtocol, kind, size, len(b))
		}
		switch kind {
		case 0:
			if body != nil {
				return nil, fmt.Errorf("%w: two body sections", ErrMongoProtocol)
			}
			body = bson.Raw(b[:size])
			if body[size-1] != 0 {
				return nil, fmt.Errorf("%w: body document not terminated", ErrMongoProtocol)
			}
		case 1:
		default:
			return nil, fmt.Errorf("%w: unknown section kind %d", ErrMongoProtocol, kind)
		}
		b = b[size:]
	}
	if body == nil {
		return nil, fmt.Errorf("%w: no body section", ErrMongoProtocol)
	}
	return body, nil
}

// checkMongoReply returns a *MongoCommandError when body says ok: 0 or
// carries writeErrors or a writeConcernError, and ErrMongoProtocol when it
// has no ok.
func checkMongoReply(body bson.Raw) error {
	okv, err := body.LookupErr("ok")
	if err != nil {
		return fmt.Errorf("%w: no ok in the reply: %v", ErrMongoProtocol, err)
	}
	ok, isNum := bsonNumber(okv)
	if b, isBool := okv.BooleanOK(); isBool {
		ok, isNum = 0, true
		if b {
			ok = 1
		}
	}
	if !isNum {
		return fmt.Errorf("%w: ok is a %s", ErrMongoProtocol, okv.Type)
	}
	if ok != 1 {
		return commandError(body)
	}
	if we, err := body.LookupErr("writeErrors"); err == nil {
		if arr, ok := we.ArrayOK(); ok {
			if vals, err := arr.Values(); err == nil && len(vals) > 0 {
				first, _ := vals[0].DocumentOK()
				e := commandError(first)
				if len(vals) > 1 {
					return fmt.Errorf("%d write errors, the first: %w", len(vals), e)
				}
				return e
			}
		}
	}
	if wce, err := body.LookupErr("writeConcernError"); err == nil {
		d, _ := wce.DocumentOK()
		return fmt.Errorf("write concern error: %w", commandError(d))
	}
	return nil
}

// commandError reads code, codeName and errmsg from d.
func commandError(d bson.Raw) *MongoCommandError {
	e := &MongoCommandError{}
	if v, err := d.LookupErr("code"); err == nil {
		if n, ok := bsonNumber(v); ok {
			e.Code = int32(n)
		}
	}
	if v, err := d.LookupErr("codeName"); err == nil {
		e.CodeName, _ = v.StringValueOK()
	}
	if v, err := d.LookupErr("errmsg"); err == nil {
		e.Message, _ = v.StringValueOK()
	}
	return e
}

// bsonNumber returns a numeric value as a float64.
func bsonNumber(v bson.RawValue) (float64, bool) {
	if n, ok := v.Int32OK(); ok {
		return float64(n), true
	}
	if n, ok := v.Int64OK(); ok {
		return float64(n), true
	}
	if f, ok := v.DoubleOK(); ok {
		return f, true
	}
	return 0, false
}

// replyCount returns the reply's n (the documents a write inserted or
// matched).
func replyCount(body bson.Raw) (int64, error) {
	v, err := body.LookupErr("n")
	if err != nil {
		return 0, fmt.Errorf("%w: write reply has no n", ErrMongoProtocol)
	}
	f, ok := bsonNumber(v)
	if !ok {
		return 0, fmt.Errorf("%w: n is a %s", ErrMongoProtocol, v.Type)
	}
	return int64(f), nil
}

// firstBatchLen returns how many documents a find reply's
// cursor.firstBatch holds.
func firstBatchLen(body bson.Raw) (int, error) {
	v, err := body.LookupErr("cursor", "firstBatch")
	if err != nil {
		return 0, fmt.Errorf("%w: find reply has no cursor.firstBatch", ErrMongoProtocol)
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return 0, fmt.Errorf("%w: cursor.firstBatch is a %s", ErrMongoProtocol, v.Type)
	}
	vals, err := arr.Values()
	if err != nil {
		return 0, fmt.Errorf("%w: cursor.firstBatch: %v", ErrMongoProtocol, err)
	}
	return len(vals), nil
}

// mongoConn is one lean MongoDB connection, used by one goroutine.
type mongoConn struct {
	nc         net.Conn
	r          *bufio.Reader
	out, in    []byte
	doc        []byte // the command document being built
	requestID  int32
	deadlineAt time.Time
	stop       func() bool
	// broken is set by any error other than an error reply: the stream is
	// out of step and the connection must be replaced.
	broken bool
}

// dialMongo connects to addr (host:port), over TLS with tlsCfg when it is
// set, and sends hello to admin, as a driver's handshake does. The
// connection's I/O is cut off when ctx ends.
func dialMongo(ctx context.Context, addr string, tlsCfg *tls.Config) (*mongoConn, error) {
	nc, err := dialTCP(ctx, addr, tlsCfg)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	c := newMongoConn(nc)
	c.stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	var b bsonBuilder
	b.start(c.doc[:0])
	b.int32("hello", 1)
	b.string("$db", "admin")
	c.doc = b.end()
	if _, err := c.command(); err != nil {
		c.close()
		return nil, fmt.Errorf("hello: %w", err)
	}
	return c, nil
}

func newMongoConn(nc net.Conn) *mongoConn {
	return &mongoConn{
		nc: nc, r: bufio.NewReaderSize(nc, 64<<10),
		out: make([]byte, 0, 1024), in: make([]byte, 0, 4096), doc: make([]byte, 0, 1024),
	}
}

// command sends c.doc and returns the reply's body once checkMongoReply
// accepts it. The body aliases c.in until the next command.
func (c *mongoConn) command() (bson.Raw, error) {
	body, err := c.exchange()
	if err != nil {
		return nil, err
	}
	if err := checkMongoReply(body); err != nil {
		if errors.Is(err, ErrMongoProtocol) {
			c.broken = true
		}
		return nil, err
	}
	return body, nil
}

func (c *mongoConn) exchange() (bson.Raw, error) {
	if now := time.Now(); now.After(c.deadlineAt) {
		if err := c.nc.SetDeadline(now.Add(leanIOTimeout)); err != nil {
			c.broken = true
			return nil, fmt.Errorf("set deadline: %w", err)
		}
		c.deadlineAt = now.Add(time.Second)
	}
	if c.requestID == math.MaxInt32 {
		c.requestID = 0
	}
	c.requestID++
	c.out = appendOpMsg(c.out[:0], c.requestID, c.doc)
	if _, err := c.nc.Write(c.out); err != nil {
		c.broken = true
		return nil, fmt.Errorf("write: %w", err)
	}
	body, in, err := readOpMsg(c.r, c.in, c.requestID)
	c.in = in
	if err != nil {
		c.broken = true
		return nil, err
	}
	return body, nil
}

// redialMongo replaces a broken connection of conns by a new one, dialled
// with ctx (the bench's, not a phase's, which ends with the phase).
func redialMongo(ctx context.Context, conns []*mongoConn, w int, addr string, tlsCfg *tls.Config) (*mongoConn, error) {
	c := conns[w]
	if !c.broken {
		return c, nil
	}
	c.close()
	c, err := dialMongo(ctx, addr, tlsCfg)
	if err != nil {
		return nil, fmt.Errorf("reconnect after an error: %w", err)
	}
	conns[w] = c
	return c, nil
}

func (c *mongoConn) close() {
	if c.stop != nil {
		c.stop()
	}
	_ = c.nc.Close()
}

// bsonBuilder appends a BSON document element by element into a reused
// buffer; sub-documents and arrays nest with open and close.
type bsonBuilder struct {
	b      []byte
	starts []int
}

// start begins the top-level document in dst.
func (w *bsonBuilder) start(dst []byte) {
	w.b = dst
	w.starts = w.starts[:0]
	w.open()
}

func (w *bsonBuilder) open() {
	w.starts = append(w.starts, len(w.b))
	w.b = append(w.b, 0, 0, 0, 0)
}

// close ends the innermost open document or array.
func (w *bsonBuilder) close() {
	s := w.starts[len(w.starts)-1]
	w.starts = w.starts[:len(w.starts)-1]
	w.b = append(w.b, 0)
	binary.LittleEndian.PutUint32(w.b[s:], uint32(len(w.b)-s))
}

// end closes the top-level document and returns it.
func (w *bsonBuilder) end() []byte {
	w.close()
	return w.b
}

func (w *bsonBuilder) key(t bson.Type, k string) {
	w.b = append(w.b, byte(t))
	w.b = append(w.b, k...)
	w.b = append(w.b, 0)
}

func (w *bsonBuilder) string(k, v string) {
	w.key(bson.TypeString, k)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(len(v)+1))
	w.b = append(w.b, v...)
	w.b = append(w.b, 0)
}

func (w *bsonBuilder) int32(k string, v int32) {
	w.key(bson.TypeInt32, k)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v))
}

func (w *bsonBuilder) int64(k string, v int64) {
	w.key(bson.TypeInt64, k)
	w.b = binary.LittleEndian.AppendUint64(w.b, uint64(v))
}

func (w *bsonBuilder) boolean(k string, v bool) {
	w.key(bson.TypeBoolean, k)
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// dateTime appends a UTC datetime of t's milliseconds.
func (w *bsonBuilder) dateTime(k string, t time.Time) {
	w.key(bson.TypeDateTime, k)
	w.b = binary.LittleEndian.AppendUint64(w.b, uint64(t.UnixMilli()))
}

// document opens a sub-document under k; close ends it.
func (w *bsonBuilder) document(k string) {
	w.key(bson.TypeEmbeddedDocument, k)
	w.open()
}

// array opens an array under k whose elements the caller keys "0", "1",
// ...; close ends it.
func (w *bsonBuilder) array(k string) {
	w.key(bson.TypeArray, k)
	w.open()
}

// mongoHostPort returns the host:port of a mongodb:// URI naming one server
// with no credentials and no options that change the connection (the
// lean client speaks plain OP_MSG over TCP); other URIs need the driver.
func mongoHostPort(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "mongodb://")
	if !ok {
		return "", fmt.Errorf("%w: the lean client takes a mongodb://host:port/ URI, not %q (use --client=driver)", ErrBadTarget, uri)
	}
	hosts, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hosts, tail = rest[:i], rest[i:]
	}
	if strings.Contains(hosts, "@") || strings.Contains(hosts, ",") || hosts == "" {
		return "", fmt.Errorf("%w: the lean client takes one host and no credentials, not %q (use --client=driver)", ErrBadTarget, uri)
	}
	if _, q, _ := strings.Cut(tail, "?"); q != "" {
		return "", fmt.Errorf("%w: the lean client takes no URI options, not %q (use --client=driver)", ErrBadTarget, uri)
	}
	if _, _, err := net.SplitHostPort(hosts); err != nil {
		hosts = net.JoinHostPort(strings.Trim(hosts, "[]"), "27017")
	}
	return hosts, nil
}
