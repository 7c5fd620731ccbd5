package resp_test

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRedisDebugProtocol: DEBUG PROTOCOL answers one sample of each RESP
// type as Redis does, degraded in RESP2 (a big number as a bulk string, an
// attribute left out, booleans as integers) and refuses a push in RESP2.
func TestRedisDebugProtocol(t *testing.T) {
	e := newEnv(t)
	c3 := e.client(3)
	ctx := t.Context()
	n, err := c3.Do(ctx, "debug", "protocol", "bignum").Result()
	want, _ := new(big.Int).SetString("1234567999999999999999999999999999999", 10)
	if b, ok := n.(*big.Int); err != nil || !ok || b.Cmp(want) != 0 {
		t.Fatalf("bignum: %#v %v", n, err)
	}
	runSteps(t, e, c3, []step{
		reply("Hello World", "debug", "protocol", "string"),
		reply(int64(12345), "debug", "protocol", "integer"),
		reply(3.141, "debug", "protocol", "double"),
		reply(true, "debug", "protocol", "true"),
		reply(false, "debug", "protocol", "false"),
		reply("This is a verbatim\nstring", "debug", "protocol", "verbatim"),
		reply(map[any]any{int64(0): false, int64(1): true, int64(2): false}, "debug", "protocol", "map"),
		reply([]any{int64(0), int64(1), int64(2)}, "debug", "protocol", "array"),
		fails("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false",
			"debug", "protocol", "foo"),
	})
	c2 := e.client(2)
	runSteps(t, e, c2, []step{
		reply("1234567999999999999999999999999999999", "debug", "protocol", "bignum"),
		reply(int64(1), "debug", "protocol", "true"),
		reply("3.141", "debug", "protocol", "double"),
		reply("Some real reply following the attribute", "debug", "protocol", "attrib"),
		fails("ERR RESP2 is not supported by this command", "debug", "protocol", "push"),
		reply(nil, "debug", "protocol", "null"),
	})

	// The attribute and the push, byte for byte in RESP3.
	raw := e.raw()
	if _, err := raw.Write([]byte("HELLO 3\r\nDEBUG PROTOCOL attrib\r\nDEBUG PROTOCOL push\r\n")); err != nil {
		t.Fatal(err)
	}
	tail := "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n" +
		">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n"
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for !strings.HasSuffix(string(got), tail) {
		n, err := raw.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read: %v after %q", err, got)
		}
	}
	if set, err := c3.Do(ctx, "debug", "protocol", "set").Result(); err != nil || !reflect.DeepEqual(set, []any{int64(0), int64(1), int64(2)}) {
		t.Fatalf("set: %#v %v", set, err)
	}
}
