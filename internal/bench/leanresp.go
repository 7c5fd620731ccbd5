package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// The lean RESP client: one connection, commands encoded into a reused
// buffer, replies read by a small RESP2 reader. It does what
// redis-benchmark does and no more, so a throughput figure is the server's
// and not go-redis's (which spends most of a core of its own per 20,000
// requests a second).

// leanIOTimeout bounds every read and write of a lean client: a server that
// stops answering fails the phase instead of hanging it.
const leanIOTimeout = 30 * time.Second

// ErrRESPProtocol reports a reply that is not well-formed RESP2.
var ErrRESPProtocol = errors.New("bench: malformed RESP reply")

// RESPError is an error reply of a RESP server ("-ERR ...", "-WRONGTYPE
// ..."): its text without the leading '-'.
type RESPError string

func (e RESPError) Error() string { return string(e) }

// respReply is one reply, its contents discarded: the type byte and, for
// integers the value, for bulk strings and arrays the length (-1: nil).
type respReply struct {
	kind byte
	n    int64
}

// maxRESPDepth bounds the nesting of arrays the reader follows.
const maxRESPDepth = 8

// maxRESPBulk bounds a bulk string's length (Redis's proto-max-bulk-len).
const maxRESPBulk = 512 << 20

// readRESPReply reads one RESP2 reply from r. An error reply is consumed
// and returned as a RESPError; so is the first error element of an array,
// after the whole array is consumed, so the stream stays in step. Any
// other error means the stream cannot be trusted any more.
func readRESPReply(r *bufio.Reader) (respReply, error) {
	return readRESPValue(r, 0)
}

func readRESPValue(r *bufio.Reader, depth int) (respReply, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return respReply{}, fmt.Errorf("%w: line longer than %d bytes", ErrRESPProtocol, r.Size())
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return respReply{}, fmt.Errorf("read reply: %w", err)
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return respReply{}, fmt.Errorf("%w: line %q", ErrRESPProtocol, line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+':
		return respReply{kind: kind}, nil
	case '-':
		return respReply{kind: kind}, RESPError(body)
	case ':':
		n, ok := parseRESPInt(body)
		if !ok {
			return respReply{}, fmt.Errorf("%w: integer %q", ErrRESPProtocol, body)
		}
		return respReply{kind: kind, n: n}, nil
	case '$':
		n, ok := parseRESPInt(body)
		if !ok || n < -1 || n > maxRESPBulk {
			return respReply{}, fmt.Errorf("%w: bulk length %q", ErrRESPProtocol, body)
		}
		if n >= 0 {
			if _, err := r.Discard(int(n)); err != nil {
				return respReply{}, fmt.Errorf("read bulk string: %w", unexpectedEOF(err))
			}
			cr, err1 := r.ReadByte()
			lf, err2 := r.ReadByte()
			if err := errors.Join(err1, err2); err != nil {
				return respReply{}, fmt.Errorf("read bulk string: %w", unexpectedEOF(err))
			}
			if cr != '\r' || lf != '\n' {
				return respReply{}, fmt.Errorf("%w: bulk string of %d bytes not ended by CRLF", ErrRESPProtocol, n)
			}
		}
		return respReply{kind: kind, n: n}, nil
	case '*':
		n, ok := parseRESPInt(body)
		if !ok || n < -1 {
			return respReply{}, fmt.Errorf("%w: array length %q", ErrRESPProtocol, body)
		}
		if depth >= maxRESPDepth {
			return respReply{}, fmt.Errorf("%w: arrays nested deeper than %d", ErrRESPProtocol, maxRESPDepth)
		}
		var first error
		for range n {
			_, err := readRESPValue(r, depth+1)
			var re RESPError
			if errors.As(err, &re) {
				if first == nil {
					first = err
				}
				continue
			}
			if errors.Is(err, io.EOF) {
				return respReply{}, fmt.Errorf("read array element: %w", io.ErrUnexpectedEOF)
			}
			if err != nil {
				return respReply{}, err
			}
		}
		return respReply{kind: kind, n: n}, first
	default:
		return respReply{}, fmt.Errorf("%w: unknown reply type %q", ErrRESPProtocol, kind)
	}
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseRESPInt parses a RESP integer (an optional '-', then digits)
// without allocating.
func parseRESPInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n < 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// appendRESPArray appends the header of a command of n arguments.
func appendRESPArray(dst []byte, n int) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

// appendRESPBulk appends one argument.
func appendRESPBulk(dst []byte, s string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// appendRESPBulkNum appends the argument prefix followed by i in decimal
// (a key such as "bench:kv:42") without building it as a string first.
func appendRESPBulkNum(dst []byte, prefix string, i int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(i), 10)
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(prefix)+len(d)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, prefix...)
	dst = append(dst, d...)
	return append(dst, '\r', '\n')
}

// respConn is one lean RESP connection. It is used by one goroutine.
type respConn struct {
	nc  net.Conn
	r   *bufio.Reader
	out []byte
	// deadlineAt is when the I/O deadline is next pushed forward: it is
	// refreshed at most once a second rather than on every request.
	deadlineAt time.Time
	stop       func() bool
	// broken is set by any error other than an error reply: the stream is
	// out of step and the connection must be replaced.
	broken bool
}

// dialRESP connects to addr, over TLS with tlsCfg when it is set, and,
// when db is not 0, SELECTs it. The connection's I/O is cut off when ctx
// ends.
func dialRESP(ctx context.Context, addr string, tlsCfg *tls.Config, db int) (*respConn, error) {
	nc, err := dialTCP(ctx, addr, tlsCfg)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	c := newRESPConn(nc)
	c.stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	if db != 0 {
		c.out = appendRESPArray(c.out[:0], 2)
		c.out = appendRESPBulk(c.out, "SELECT")
		c.out = appendRESPBulk(c.out, strconv.Itoa(db))
		if err := c.roundTrip(1); err != nil {
			c.close()
			return nil, fmt.Errorf("SELECT %d: %w", db, err)
		}
	}
	return c, nil
}

func newRESPConn(nc net.Conn) *respConn {
	return &respConn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10), out: make([]byte, 0, 4096)}
}

// roundTrip writes the commands encoded in c.out and reads n replies. Every
// reply is read even after an error reply, so the connection stays in
// step; an error reply is returned as a RESPError (with how many of the n
// replies were errors when there were several).
func (c *respConn) roundTrip(n int) error {
	err := c.exchange(n)
	var re RESPError
	if err != nil && !errors.As(err, &re) {
		c.broken = true
	}
	return err
}

func (c *respConn) exchange(n int) error {
	if now := time.Now(); now.After(c.deadlineAt) {
		if err := c.nc.SetDeadline(now.Add(leanIOTimeout)); err != nil {
			return fmt.Errorf("set deadline: %w", err)
		}
		c.deadlineAt = now.Add(time.Second)
	}
	if _, err := c.nc.Write(c.out); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	var (
		first error
		bad   int
	)
	for range n {
		_, err := readRESPReply(c.r)
		var re RESPError
		if errors.As(err, &re) {
			bad++
			if first == nil {
				first = err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	if bad > 1 {
		return fmt.Errorf("%d of %d replies were errors, the first: %w", bad, n, first)
	}
	return first
}

// redialRESP replaces a broken connection of conns by a new one, dialled
// with ctx (the bench's, not a phase's, which ends with the phase).
func redialRESP(ctx context.Context, conns []*respConn, w int, addr string, tlsCfg *tls.Config, db int) (*respConn, error) {
	c := conns[w]
	if !c.broken {
		return c, nil
	}
	c.close()
	c, err := dialRESP(ctx, addr, tlsCfg, db)
	if err != nil {
		return nil, fmt.Errorf("reconnect after an error: %w", err)
	}
	conns[w] = c
	return c, nil
}

func (c *respConn) close() {
	if c.stop != nil {
		c.stop()
	}
	_ = c.nc.Close()
}
