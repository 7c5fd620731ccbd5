package resp_test

import (
	"bufio"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rawUntil sends in on a new connection and reads until the replies end
// with suffix; it returns what was read.
func rawUntil(t *testing.T, e *env, in, suffix string) string {
	t.Helper()
	c := e.raw()
	if _, err := c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	var got strings.Builder
	for !strings.HasSuffix(got.String(), suffix) {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v after %q, want suffix %q", err, got.String(), suffix)
		}
		got.WriteString(l)
	}
	return got.String()
}

func TestZMPopAndLMPop(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(4), "zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"),
		reply([]any{"z", []any{[]any{"a", "1"}}}, "zmpop", "2", "nokey", "z", "min"),
		reply([]any{"z", []any{[]any{"d", "4"}, []any{"c", "3"}}}, "zmpop", "1", "z", "MAX", "COUNT", "2"),
		reply([]any{"z", []any{[]any{"b", "2"}}}, "zmpop", "1", "z", "min", "count", "10"),
		reply(int64(0), "exists", "z"),
		reply(nil, "zmpop", "2", "z", "nokey", "min"),
		reply(int64(3), "rpush", "l", "1", "2", "3"),
		reply([]any{"l", []any{"3", "2"}}, "lmpop", "2", "nokey", "l", "right", "count", "2"),
		reply([]any{"l", []any{"1"}}, "lmpop", "1", "l", "LEFT", "COUNT", "5"),
		reply(int64(0), "exists", "l"),
		reply(nil, "lmpop", "1", "l", "left"),
	})
	want := []string{"zadd z", "zpopmin z", "zpopmax z", "zpopmin z", "del z", "rpush l", "rpop l", "lpop l", "del l"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// Errors, in Redis's order: numkeys, the end word, COUNT, then types.
	runSteps(t, e, c, []step{
		ok("set", "str", "v"),
		reply(int64(1), "zadd", "z", "1", "a"),
		fails("ERR numkeys should be greater than 0", "zmpop", "0", "z", "min"),
		fails("ERR numkeys should be greater than 0", "zmpop", "x", "z", "min"),
		fails("ERR numkeys should be greater than 0", "zmpop", "9223372036854775808", "z", "min"),
		fails("ERR syntax error", "zmpop", "9223372036854775807", "z", "min"),
		fails("ERR syntax error", "zmpop", "2", "z", "min"),
		fails("ERR syntax error", "zmpop", "1", "z", "left"),
		fails("ERR count should be greater than 0", "zmpop", "1", "z", "min", "count", "0"),
		fails("ERR count should be greater than 0", "zmpop", "1", "z", "min", "count", "x"),
		fails("ERR syntax error", "zmpop", "1", "z", "min", "count", "1", "count", "1"),
		fails("ERR syntax error", "zmpop", "1", "z", "min", "count"),
		fails("ERR syntax error", "zmpop", "1", "z", "min", "foo"),
		fails("ERR wrong number of arguments for 'zmpop' command", "zmpop", "1", "z"),
		fails(wrongType, "zmpop", "2", "nokey", "str", "min"),
		reply([]any{"z", []any{[]any{"a", "1"}}}, "zmpop", "2", "z", "str", "min"),
		fails("ERR numkeys should be greater than 0", "lmpop", "-1", "l", "left"),
		fails("ERR syntax error", "lmpop", "1", "l", "min"),
		fails("ERR count should be greater than 0", "lmpop", "1", "l", "left", "count", "-1"),
		fails(wrongType, "lmpop", "1", "str", "left"),
		fails("ERR wrong number of arguments for 'lmpop' command", "lmpop", "1", "l"),
	})
	// RESP2 and RESP3 shapes: nested pairs in both, a null array when
	// nothing is there.
	got := rawUntil(t, e, "zadd p 1.5 a\r\nzmpop 1 p min\r\nzmpop 1 p min\r\nlmpop 1 p left\r\n", "*-1\r\n*-1\r\n")
	if want := ":1\r\n*2\r\n$1\r\np\r\n*1\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n*-1\r\n*-1\r\n"; got != want {
		t.Fatalf("RESP2 replies %q, want %q", got, want)
	}
	got = rawUntil(t, e, "hello 3\r\nzadd p 1.5 a\r\nzmpop 1 p min\r\nzmpop 1 p min\r\nlmpop 1 p left\r\n", "_\r\n_\r\n")
	if want := ":1\r\n*2\r\n$1\r\np\r\n*1\r\n*2\r\n$1\r\na\r\n,1.5\r\n_\r\n_\r\n"; !strings.HasSuffix(got, want) {
		t.Fatalf("RESP3 replies %q, want suffix %q", got, want)
	}
}
