package script

import (
	"strings"
	"testing"
)

// TestStructAgainstRedis runs struct.pack, struct.unpack and struct.size
// calls whose replies were taken from redis-server 7.0 (redis-cli
// --no-raw EVAL ... 0); an error is compared up to " script:".
func TestStructAgainstRedis(t *testing.T) {
	e := New(nil)
	cases := []struct{ body, want string }{
		{"return struct.pack('>i2', 258)", "\x01\x02"},
		{"return struct.pack('<i2', 258)", "\x02\x01"},
		{"return struct.pack('bBhHlLTiI', -1, 255, -2, 65535, -3, 3, 4, -5, 5)",
			"\xff\xff\xfe\xff\xff\xff\xfd\xff\xff\xff\xff\xff\xff\xff\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\xfb\xff\xff\xff\x05\x00\x00\x00"},
		{"return struct.pack('>bBhHlLTiI', -1, 255, -2, 65535, -3, 3, 4, -5, 5)",
			"\xff\xff\xff\xfe\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfd\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04\xff\xff\xff\xfb\x00\x00\x00\x05"},
		{"return struct.pack('!4bi', 1, 2)", "\x01\x00\x00\x00\x02\x00\x00\x00"},
		{"return struct.pack('!bd', 1, 1.5)", "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf8?"},
		{"return struct.pack('!2bxh', 1, 2)", "\x01\x00\x02\x00"},
		{"return struct.pack('<f>f', 1.25, -2.5)", "\x00\x00\xa0?\xc0 \x00\x00"},
		{"return struct.pack('<d>d', 0.1, -1e300)", "\x9a\x99\x99\x99\x99\x99\xb9?\xfe7\xe4<\x88\x00u\x9c"},
		{"return struct.pack('c3c', 'abcdef', 'xy')", "abcx"},
		{"return struct.pack('c0', 'hello')", "hello"},
		{"return struct.pack('i16', -1)", "\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00"},
		{"return struct.pack('i3', 8388607)", "\xff\xff\x7f"},
		{"return struct.pack('x x', 1)", "\x00\x00"},
		{"return struct.pack('b', 3.7)", "\x03"},
		{"return struct.pack('B', -1)", "\xff"},
		{"return {struct.unpack('>i2', '\\1\\2')}", "[258 3]"},
		{"return {struct.unpack('<hBs', struct.pack('<hBs', -2, 7, 'ab'))}", "[-2 7 ab 7]"},
		{"return {struct.unpack('bBhHlLiI', struct.pack('bBhHlLiI', -1, 255, -2, 65535, -3, 3, -5, 5))}", "[-1 255 -2 65535 -3 3 -5 5 31]"},
		{"return {struct.unpack('!bd', struct.pack('!bd', 1, 1.5))}", "[1 1 17]"},
		{"return {struct.unpack('Bc0', '\\3abcdef')}", "[abc 5]"},
		{"return {struct.unpack('c2', 'abcd', 3)}", "[cd 5]"},
		{"return {struct.unpack('i3', '\\255\\255\\255')}", "[-1 4]"},
		{"return {struct.unpack('I3', '\\255\\255\\255')}", "[16777215 4]"},
		{"return struct.size('bhi')", "7"},
		{"return struct.size('!bhi')", "8"},
		{"return struct.size('!8bd')", "16"},
		{"return struct.size('c10xi7')", "18"},
		{"return struct.pack('sz', 'ab', 'cd')", "ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'z')"},
		{"return struct.size('s')", "ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)"},
		{"return struct.size('c0')", "ERR user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size)"},
		{"return struct.pack('y', 1)", "ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'y')"},
		{"return struct.pack('!3b', 1)", "ERR user_script:1: alignment 3 is not a power of 2"},
		{"return struct.pack('i33', 1)", "ERR user_script:1: integral size 33 is larger than limit of 32"},
		{"return struct.pack('c5', 'ab')", "ERR user_script:1: bad argument #3 to 'pack' (string too short)"},
		{"return {struct.unpack('i', 'ab')}", "ERR user_script:1: bad argument #2 to 'unpack' (data string too short)"},
		{"return {struct.unpack('s', 'ab')}", "ERR user_script:1: unfinished string in data"},
		{"return {struct.unpack('c0', 'ab')}", "ERR user_script:1: format 'c0' needs a previous size"},
		{"return {struct.unpack('b', 'a', 0)}", "ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)"},
		{"return struct.pack('i', 'notanumber')", "ERR user_script:1: bad argument #2 to 'pack' (number expected, got string)"},
		// no Redis counterpart: inputs that must fail, never panic
		{"return {struct.unpack('Bc0', '\\200a')}", "ERR user_script:1: bad argument #2 to 'unpack' (data string too short)"},
		{"return {struct.unpack('c0', 'a')}", "ERR user_script:1: format 'c0' needs a previous size"},
		{"return struct.size('i99999999999')", "ERR user_script:1: integral size overflow"},
	}
	for _, c := range cases {
		got := render(eval(t, e, c.body))
		got, _, _ = strings.Cut(got, " script: ")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}
