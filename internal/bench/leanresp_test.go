package bench

import (
	"bufio"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
)

// Ensure that the RESP2 reader reads every reply type, returns error
// replies as RESPError (also inside arrays, after consuming the whole
// array) and refuses malformed and short input.
func TestReadRESPReply(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    respReply
		errText string // a RESPError with this text
		proto   bool   // ErrRESPProtocol
		eof     error  // io.EOF or io.ErrUnexpectedEOF
	}{
		{name: "simple", in: "+OK\r\n", want: respReply{kind: '+'}},
		{name: "integer", in: ":42\r\n", want: respReply{kind: ':', n: 42}},
		{name: "negative integer", in: ":-7\r\n", want: respReply{kind: ':', n: -7}},
		{name: "bulk", in: "$3\r\nabc\r\n", want: respReply{kind: '$', n: 3}},
		{name: "empty bulk", in: "$0\r\n\r\n", want: respReply{kind: '$', n: 0}},
		{name: "nil bulk", in: "$-1\r\n", want: respReply{kind: '$', n: -1}},
		{name: "bulk holding CRLF", in: "$4\r\na\r\nb\r\n", want: respReply{kind: '$', n: 4}},
		{name: "array", in: "*3\r\n$1\r\na\r\n:1\r\n*1\r\n+x\r\n", want: respReply{kind: '*', n: 3}},
		{name: "nil array", in: "*-1\r\n", want: respReply{kind: '*', n: -1}},
		{name: "error", in: "-ERR value is not an integer or out of range\r\n", want: respReply{kind: '-'}, errText: "ERR value is not an integer or out of range"},
		{name: "wrongtype", in: "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", want: respReply{kind: '-'}, errText: "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{name: "error in array", in: "*3\r\n:1\r\n-ERR first\r\n-ERR second\r\n", want: respReply{kind: '*', n: 3}, errText: "ERR first"},
		{name: "unknown type", in: "?x\r\n", proto: true},
		{name: "LF without CR", in: "+OK\n", proto: true},
		{name: "empty line", in: "\r\n", proto: true},
		{name: "bad integer", in: ":4x\r\n", proto: true},
		{name: "empty integer", in: ":\r\n", proto: true},
		{name: "integer too long", in: ":12345678901234567890\r\n", proto: true},
		{name: "bulk length below -1", in: "$-2\r\n", proto: true},
		{name: "bulk length too big", in: "$999999999999\r\n", proto: true},
		{name: "bulk without CRLF", in: "$3\r\nabcd\r\n", proto: true},
		{name: "array length bad", in: "*x\r\n", proto: true},
		{name: "array element malformed", in: "*2\r\n:1\r\n!\r\n", proto: true},
		{name: "nested too deep", in: strings.Repeat("*1\r\n", maxRESPDepth+1) + ":1\r\n", proto: true},
		{name: "nothing", in: "", eof: io.EOF},
		{name: "line cut short", in: "+OK", eof: io.ErrUnexpectedEOF},
		{name: "bulk cut short", in: "$5\r\nab", eof: io.ErrUnexpectedEOF},
		{name: "bulk without its CRLF", in: "$2\r\nab", eof: io.ErrUnexpectedEOF},
		{name: "array cut short", in: "*2\r\n:1\r\n", eof: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readRESPReply(bufio.NewReader(strings.NewReader(tt.in)))
			var re RESPError
			switch {
			case tt.errText != "":
				if !errors.As(err, &re) || string(re) != tt.errText {
					t.Fatalf("err = %v, want RESPError %q", err, tt.errText)
				}
			case tt.proto:
				if !errors.Is(err, ErrRESPProtocol) {
					t.Fatalf("err = %v, want ErrRESPProtocol", err)
				}
				return
			case tt.eof != nil:
				if !errors.Is(err, tt.eof) {
					t.Fatalf("err = %v, want %v", err, tt.eof)
				}
				return
			case err != nil:
				t.Fatalf("err = %v", err)
			}
			if got != tt.want {
				t.Errorf("reply = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Ensure that a line longer than the reader's buffer is refused rather than
// read in pieces.
func TestReadRESPReplyLongLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("+"+strings.Repeat("x", 100)+"\r\n"), 16)
	if _, err := readRESPReply(r); !errors.Is(err, ErrRESPProtocol) {
		t.Fatalf("err = %v, want ErrRESPProtocol", err)
	}
}

// Ensure that the reader stays in step after an error reply: the next
// reply is read whole.
func TestReadRESPReplyAfterError(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("*2\r\n-ERR a\r\n$1\r\nx\r\n:5\r\n"))
	if _, err := readRESPReply(r); err == nil {
		t.Fatal("no error for an array holding an error")
	}
	got, err := readRESPReply(r)
	if err != nil || got != (respReply{kind: ':', n: 5}) {
		t.Fatalf("next reply = %+v, %v", got, err)
	}
}

// Ensure that commands are encoded as RESP arrays of bulk strings, the
// same commands kvCmd sends through go-redis.
func TestAppendKVCmd(t *testing.T) {
	tests := []struct {
		kind string
		want string
	}{
		{"set_ex", "*5\r\n$3\r\nSET\r\n$%d\r\nbench:kv:%s\r\n$2\r\nvv\r\n$2\r\nEX\r\n$4\r\n3600\r\n"},
		{"get", "*2\r\n$3\r\nGET\r\n$%d\r\nbench:kv:%s\r\n"},
		{"incr", "*2\r\n$4\r\nINCR\r\n$%d\r\nbench:ctr:%s\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			// The same seed draws the same key for the expectation.
			_, i := kvPick(tt.kind, rand.New(rand.NewPCG(1, 2)), 1000)
			got := string(appendKVCmd(nil, tt.kind, rand.New(rand.NewPCG(1, 2)), 1000, "vv"))
			key := strconv.Itoa(i)
			prefix := "bench:kv:"
			if tt.kind == "incr" {
				prefix = "bench:ctr:"
			}
			want := strings.Replace(strings.Replace(tt.want, "%d", strconv.Itoa(len(prefix)+len(key)), 1), "%s", key, 1)
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	got := string(appendKVCmd(nil, "hset", rand.New(rand.NewPCG(3, 4)), 5000, "v"))
	if !strings.HasPrefix(got, "*4\r\n$4\r\nHSET\r\n$") || !strings.Contains(got, "bench:h:") || !strings.HasSuffix(got, "\r\n$1\r\nv\r\n") {
		t.Errorf("hset = %q", got)
	}
}

// Ensure that a pipeline reads every reply, reports how many were errors
// and leaves the connection in step for the next request.
func TestRESPConnRoundTrip(t *testing.T) {
	client, srv := net.Pipe()
	defer srv.Close()
	c := newRESPConn(client)
	defer c.close()
	replies := []string{
		"+OK\r\n-ERR one\r\n$1\r\nx\r\n-WRONGTYPE two\r\n", // pipeline of 4 with 2 errors
		":1\r\n", // then a clean request
		"-ERR alone\r\n",
		"$3\r\nab", // then a reply cut off by the server closing
	}
	go func() {
		r := bufio.NewReader(srv)
		for i, reply := range replies {
			n := 4
			if i > 0 {
				n = 1
			}
			for range n {
				if _, err := readRESPReply(r); err != nil {
					return
				}
			}
			if _, err := io.WriteString(srv, reply); err != nil {
				return
			}
		}
		srv.Close()
	}()
	send := func(n int) error {
		c.out = c.out[:0]
		for range n {
			c.out = appendKVCmd(c.out, "get", rand.New(rand.NewPCG(1, 1)), 10, "v")
		}
		return c.roundTrip(n)
	}
	err := send(4)
	var re RESPError
	if !errors.As(err, &re) || string(re) != "ERR one" || !strings.Contains(err.Error(), "2 of 4 replies were errors") {
		t.Fatalf("pipeline: err = %v", err)
	}
	if err := send(1); err != nil {
		t.Fatalf("after the errors: %v", err)
	}
	if err := send(1); !errors.As(err, &re) || err.Error() != "ERR alone" {
		t.Fatalf("single error: err = %v", err)
	}
	if c.broken {
		t.Fatal("error replies marked the connection broken")
	}
	if err := send(1); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut reply: err = %v, want unexpected EOF", err)
	}
	if !c.broken {
		t.Fatal("a cut reply left the connection usable")
	}
}

// Ensure that a broken connection is replaced by a new one to the same
// server, and a sound one kept.
func TestRedialRESP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					if _, err := readRESPReply(r); err != nil {
						return
					}
					if _, err := io.WriteString(c, "+OK\r\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	conns, closeAll, err := dialLeanRESP(t.Context(), ln.Addr().String(), nil, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	conns[1].broken = true
	old0, old1 := conns[0], conns[1]
	for w := range conns {
		c, err := redialRESP(t.Context(), conns, w, ln.Addr().String(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		c.out = appendKVCmd(c.out[:0], "get", rand.New(rand.NewPCG(1, 1)), 10, "v")
		if err := c.roundTrip(1); err != nil {
			t.Fatalf("conn %d: %v", w, err)
		}
	}
	if conns[0] != old0 || conns[1] == old1 {
		t.Error("redial replaced the wrong connection")
	}
}
