package resp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func encodeCommand(args [][]byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.Bytes()
}

func strs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		name string
		in   string
		args []string
		n    int
		err  string
	}{
		{"multibulk", "*2\r\n$3\r\nget\r\n$1\r\nk\r\n", []string{"get", "k"}, 20, ""},
		{"empty bulk", "*2\r\n$3\r\nget\r\n$0\r\n\r\n", []string{"get", ""}, 19, ""},
		{"incomplete header", "*2\r\n$3\r\nge", nil, 0, ""},
		{"incomplete count", "*2", nil, 0, ""},
		{"zero count", "*0\r\n", nil, 4, ""},
		{"negative count", "*-1\r\n", nil, 5, ""},
		{"inline", "PING hello\r\n", []string{"PING", "hello"}, 12, ""},
		{"inline lf", "PING\n", []string{"PING"}, 5, ""},
		{"inline quotes", "set \"a b\" 'c d' \"\\x41\\n\"\r\n", []string{"set", "a b", "c d", "A\n"}, 26, ""},
		{"inline empty line", "\r\n", nil, 2, ""},
		{"inline blanks", "  \r\n", nil, 4, ""},
		{"unbalanced", "set a \"b\r\n", nil, 0, "Protocol error: unbalanced quotes in request"},
		{"closing quote glued", "set \"a\"b\r\n", nil, 0, "Protocol error: unbalanced quotes in request"},
		{"expected dollar", "*1\r\nfoo\r\n", nil, 0, "Protocol error: expected '$', got 'f'"},
		{"bad count", "*x\r\n", nil, 0, "Protocol error: invalid multibulk length"},
		{"huge count", "*99999999999\r\n", nil, 0, "Protocol error: invalid multibulk length"},
		{"negative bulk", "*1\r\n$-5\r\n", nil, 0, "Protocol error: invalid bulk length"},
		{"bulk over max", "*1\r\n$600000000\r\n", nil, 0, "Protocol error: invalid bulk length"},
		{"bad bulk", "*1\r\n$4x\r\n", nil, 0, "Protocol error: invalid bulk length"},
		{"long count line", "*" + strings.Repeat("1", 70000), nil, 0, "Protocol error: too big mbulk count string"},
		{"long bulk line", "*1\r\n$" + strings.Repeat("1", 70000), nil, 0, "Protocol error: too big bulk count string"},
		{"long inline", strings.Repeat("a", 70000), nil, 0, "Protocol error: too big inline request"},
		{"two commands", "*1\r\n$4\r\nping\r\n*1\r\n$4\r\nping\r\n", []string{"ping"}, 14, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, n, err := ParseCommand([]byte(c.in), DefaultLimits(), nil)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if n != c.n || strings.Join(strs(args), "|") != strings.Join(c.args, "|") {
				t.Fatalf("got %q n=%d, want %q n=%d", strs(args), n, c.args, c.n)
			}
		})
	}
}

func TestParseUnauthenticatedLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.Unauthenticated = true
	_, _, err := ParseCommand([]byte("*11\r\n"), lim, nil)
	if err == nil || err.Error() != "Protocol error: unauthenticated multibulk length" {
		t.Fatalf("count: %v", err)
	}
	_, _, err = ParseCommand([]byte("*1\r\n$20000\r\n"), lim, nil)
	if err == nil || err.Error() != "Protocol error: unauthenticated bulk length" {
		t.Fatalf("bulk: %v", err)
	}
}

// randomCommand builds a command with binary arguments of varied sizes.
func randomCommand(r *rand.Rand) [][]byte {
	n := 1 + r.IntN(6)
	args := make([][]byte, n)
	for i := range args {
		a := make([]byte, r.IntN(40))
		for j := range a {
			a[j] = byte(r.IntN(256))
		}
		args[i] = a
	}
	return args
}

// TestRandomSplits feeds a stream of random commands cut at random points,
// as a socket delivers them, and checks every argument.
func TestRandomSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var want [][][]byte
	var stream []byte
	for range 2000 {
		c := randomCommand(r)
		want = append(want, c)
		stream = append(stream, encodeCommand(c)...)
	}
	for _, chunk := range []int{1, 7, 64, 1000, len(stream)} {
		var buf []byte
		var got [][][]byte
		for off := 0; off < len(stream); {
			end := min(off+1+r.IntN(chunk), len(stream))
			buf = append(buf, stream[off:end]...)
			off = end
			for {
				args, n, err := ParseCommand(buf, DefaultLimits(), nil)
				if err != nil {
					t.Fatalf("chunk %d: %v", chunk, err)
				}
				if n == 0 {
					break
				}
				cp := make([][]byte, len(args))
				for i, a := range args {
					cp[i] = append([]byte(nil), a...)
				}
				got = append(got, cp)
				buf = buf[n:]
			}
		}
		if len(got) != len(want) {
			t.Fatalf("chunk %d: %d commands, want %d", chunk, len(got), len(want))
		}
		for i := range want {
			if !equalArgs(got[i], want[i]) {
				t.Fatalf("chunk %d: command %d = %q, want %q", chunk, i, got[i], want[i])
			}
		}
	}
}

func equalArgs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// FuzzRESPParse: parsing never panics, a parsed request re-encodes to one
// that parses to the same arguments, and feeding the input in two pieces
// gives the same first result as feeding it whole.
func FuzzRESPParse(f *testing.F) {
	for _, s := range []string{
		"*2\r\n$3\r\nget\r\n$1\r\nk\r\n", "PING\r\n", "set \"a b\" 'c'\r\n", "*1\r\n$-1\r\n", "*0\r\n",
		"*3\r\n$3\r\nset\r\n$1\r\n\r\n$0\r\n\r\n", "\"\\x4\r\n", "*1\r\n$3\r\nfooXX",
	} {
		f.Add([]byte(s), uint16(3))
	}
	lim := DefaultLimits()
	lim.MaxBulkLen = 1 << 20
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		args, n, err := ParseCommand(in, lim, nil)
		if err != nil || n == 0 {
			return
		}
		if n > len(in) {
			t.Fatalf("consumed %d of %d bytes", n, len(in))
		}
		if len(args) > 0 {
			re := encodeCommand(args)
			args2, n2, err := ParseCommand(re, lim, nil)
			if err != nil || n2 != len(re) || !equalArgs(args, args2) {
				t.Fatalf("re-encoding %q: %q n=%d err=%v", args, args2, n2, err)
			}
		}
		// A prefix is either incomplete or parses to the same request.
		k := int(cut) % (n + 1)
		pa, pn, perr := ParseCommand(in[:k], lim, nil)
		if perr == nil && pn != 0 && (pn != n || !equalArgs(pa, args)) && k < n {
			t.Fatalf("prefix %d parsed to %q n=%d, whole to %q n=%d", k, pa, pn, args, n)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	in := encodeCommand([][]byte{[]byte("SET"), []byte("key:000123"), bytes.Repeat([]byte("v"), 64)})
	lim := DefaultLimits()
	args := make([][]byte, 0, 8)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var err error
		args, _, err = ParseCommand(in, lim, args)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func TestWriterRESP2And3(t *testing.T) {
	cases := []struct {
		name   string
		write  func(w *Writer)
		r2, r3 string
	}{
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.Int(1); w.Int(2) }, "*2\r\n:1\r\n:2\r\n", "%1\r\n:1\r\n:2\r\n"},
		{"set", func(w *Writer) { w.Set(0) }, "*0\r\n", "~0\r\n"},
		{"push", func(w *Writer) { w.Push(1); w.BulkString("x") }, "*1\r\n$1\r\nx\r\n", ">1\r\n$1\r\nx\r\n"},
		{"bool", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double exp", func(w *Writer) { w.Double(1e300) }, "$23\r\n1.0000000000000001e+300\r\n", ",1.0000000000000001e+300\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("hi") }, "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{"error strips newlines", func(w *Writer) { w.Error("ERR a\r\nb") }, "-ERR a  b\r\n", "-ERR a  b\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range []struct {
				v    int
				want string
			}{{2, c.r2}, {3, c.r3}} {
				w := NewWriter(p.v)
				c.write(w)
				if string(w.Bytes()) != p.want {
					t.Errorf("RESP%d: %q, want %q", p.v, w.Bytes(), p.want)
				}
			}
		})
	}
}
