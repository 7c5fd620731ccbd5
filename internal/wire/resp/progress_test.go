package resp

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// resumeAll feeds in to a progress in pieces of at most chunk bytes,
// resuming after each, and returns the verdict at the first point where
// parsing from scratch completes or fails, with the number of bytes fed.
func resumeAll(in []byte, chunk int, r *rand.Rand, lim Limits) (done bool, fed int, err error) {
	var p progress
	for fed < len(in) {
		fed = min(fed+1+r.IntN(chunk), len(in))
		if p.need > int64(fed) {
			continue
		}
		if done, err = p.advance(in[:fed], lim, nil); done || err != nil {
			return done, fed, err
		}
	}
	return false, fed, nil
}

// Ensure that resuming a request's parsing where it stopped gives the
// verdict and length of parsing it whole, for every kind of request and
// every way of cutting it, so the connection can parse a request of many
// arguments that arrives in many reads in linear time.
func TestProgressResumesLikeAWholeParse(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxBulkLen = 1 << 20
	r := rand.New(rand.NewPCG(3, 4))
	inputs := []string{
		"PING\r\n",
		"set \"a b\" 'c'\r\n",
		"*0\r\n",
		"*-1\r\n",
		"*1\r\n$-1\r\n",
		"*3\r\n$3\r\nset\r\n$1\r\n\r\n$0\r\n\r\n",
		"*1\r\n$3\r\nfooXX",
		"*2\r\n$3\r\nGET\r\n$2000000\r\n",
		"*1\r\nx\r\n",
		"*1\n$4\r\nPING\r\n",
		"set a \"b\r\n",
		"*" + strings.Repeat("9", 70<<10),
		strings.Repeat("a", 70<<10),
		"*1\r\n$" + strings.Repeat("1", 70<<10),
	}
	for range 300 {
		inputs = append(inputs, string(encodeCommand(randomCommand(r))))
	}
	many := make([][]byte, 5000)
	for i := range many {
		many[i] = bytes.Repeat([]byte{'x'}, i%7)
	}
	inputs = append(inputs, string(encodeCommand(many)))
	for i, in := range inputs {
		wantArgs, wantN, wantErr := ParseCommand([]byte(in), lim, nil)
		for _, chunk := range []int{1, 3, 64, 4096} {
			done, fed, err := resumeAll([]byte(in), chunk, r, lim)
			switch {
			case wantErr != nil:
				if err == nil || err.Error() != wantErr.Error() {
					t.Fatalf("input %d chunk %d: error %v, want %v", i, chunk, err, wantErr)
				}
			case wantN == 0:
				if done || err != nil {
					t.Fatalf("input %d chunk %d: done %v err %v on an incomplete request", i, chunk, done, err)
				}
			default:
				if !done || err != nil || fed < wantN {
					t.Fatalf("input %d chunk %d: done %v err %v after %d bytes, want complete at %d", i, chunk, done, err, fed, wantN)
				}
				// The connection parses a completed request again from
				// its start, collecting its arguments.
				args, n, err := ParseCommand([]byte(in)[:fed], lim, nil)
				if err != nil || n != wantN || !equalArgs(args, wantArgs) {
					t.Fatalf("input %d chunk %d: reparse n=%d err=%v, want n=%d", i, chunk, n, err, wantN)
				}
			}
		}
	}
}

// Ensure that progress.need names the end of a bulk whose header is in,
// so the connection skips parsing until those bytes arrived, and that a
// declared length near the int64 limit cannot overflow it.
func TestProgressNeed(t *testing.T) {
	lim := DefaultLimits()
	var p progress
	in := []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc")
	if done, err := p.advance(in, lim, nil); done || err != nil {
		t.Fatalf("done %v err %v", done, err)
	}
	header := len("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\n")
	if want := int64(header + 100 + 2); p.need != want {
		t.Fatalf("need %d, want %d", p.need, want)
	}
	if p.parsed != 2 {
		t.Fatalf("parsed %d, want 2", p.parsed)
	}
	lim.MaxBulkLen = 1<<63 - 1
	p = progress{}
	if done, err := p.advance([]byte("*1\r\n$9223372036854775807\r\nab"), lim, nil); done || err != nil || p.need <= 0 {
		t.Fatalf("done %v err %v need %d", done, err, p.need)
	}
	if _, n, err := ParseCommand([]byte("*1\r\n$9223372036854775807\r\nab"), lim, nil); n != 0 || err != nil {
		t.Fatalf("a bulk of the largest length: n %d err %v", n, err)
	}
}

// Ensure the read buffer's growth: doubling while small, a quarter past
// 4 MiB, capped by the end of the argument being read plus 16 KiB (so a
// big argument ends in a buffer of its exact size, not twice it) and by
// the query buffer limit.
func TestGrowSize(t *testing.T) {
	const limit = 1 << 30
	tests := []struct {
		name      string
		cp, n     int
		need      int64
		want      int64
		wantLimit int64
	}{
		{"small doubles", 16 << 10, 16 << 10, 0, 32 << 10, limit},
		{"large grows by a quarter", 8 << 20, 8 << 20, 0, 10 << 20, limit},
		{"a big argument's end caps the growth", 64 << 20, 64 << 20, 100<<20 + 50, 80 << 20, limit},
		{"the last step is exact", 96 << 20, 96 << 20, 100<<20 + 50, 100<<20 + 50 + readBufferSize, limit},
		{"the limit caps", 900 << 20, 900 << 20, 0, limit, limit},
		{"always grows", 1 << 20, 1 << 20, 1<<20 + 1, 1<<20 + 1 + readBufferSize, limit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := growSize(tt.cp, tt.n, tt.need, tt.wantLimit); got != tt.want {
				t.Fatalf("growSize(%d, %d, %d) = %d, want %d", tt.cp, tt.n, tt.need, got, tt.want)
			}
		})
	}
	// A 300 MB argument arriving from a 16 KiB buffer: the buffer is never
	// larger than the argument's end plus 16 KiB, and the copies add up to
	// a small multiple of it.
	need := int64(300<<20 + 40)
	cp, copied := readBufferSize, int64(0)
	for int64(cp) < need {
		copied += int64(cp)
		next := growSize(cp, cp, need, limit)
		if next > need+readBufferSize {
			t.Fatalf("grew to %d for an argument ending at %d", next, need)
		}
		cp = int(next)
	}
	if copied > 6*need {
		t.Fatalf("copied %d bytes to read %d", copied, need)
	}
}
