package resp_test

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// reapFields runs every db's hash field expiry source at the fake clock's
// now, as the sweeper would.
func reapFields(e *env) int {
	e.t.Helper()
	n := 0
	for _, s := range e.kv.FieldSources() {
		r, err := expiry.Drain(e.t.Context(), s, e.clock.Now(), 0, 100)
		if err != nil {
			e.t.Fatal(err)
		}
		n += r.Items
	}
	return n
}

const (
	wrongType     = "WRONGTYPE Operation against a key holding the wrong kind of value"
	fieldsMissing = "ERR Mandatory argument FIELDS is missing or not at the right position"
	fieldsCount   = "ERR The `numfields` parameter must match the number of arguments"
	writeNumMsg   = "ERR Parameter `numFields` should be greater than 0"
	readNumMsg    = "ERR Number of fields must be a positive integer"
)

// TestHExpireErrors is the argument and error surface of Redis 7.4's
// field expiry commands, byte for byte.
func TestHExpireErrors(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	steps := []step{
		reply(int64(2), "hset", "h", "a", "1", "b", "2"),
		ok("set", "str", "v"),
	}
	for _, cmd := range []string{"hexpire", "hpexpire", "hexpireat", "hpexpireat"} {
		steps = append(steps,
			fails(wrongType, cmd, "str", "100", "FIELDS", "1", "a"),
			fails(wrongType, cmd, "str", "abc", "FIELDS", "1", "a"),
			fails("ERR value is not an integer or out of range", cmd, "h", "abc", "FIELDS", "1", "a"),
			fails("ERR invalid expire time, must be >= 0", cmd, "h", "-1", "FIELDS", "1", "a"),
			fails(fieldsCount, cmd, "h", "100", "FIELDS", "2", "a"),
			fails(fieldsCount, cmd, "h", "100", "FIELDS", "1", "a", "b"),
			fails(writeNumMsg, cmd, "h", "100", "FIELDS", "0", "a"),
			fails(writeNumMsg, cmd, "h", "100", "FIELDS", "-1", "a"),
			fails(writeNumMsg, cmd, "h", "100", "FIELDS", "x", "a"),
			fails(fieldsMissing, cmd, "h", "100", "NOPE", "1", "a"),
			fails(fieldsMissing, cmd, "h", "100", "NX", "XX", "FIELDS", "1", "a"),
			fails("ERR wrong number of arguments for '"+cmd+"' command", cmd, "h", "100", "FIELDS", "1"),
		)
	}
	for _, cmd := range []string{"httl", "hpttl", "hexpiretime", "hpexpiretime", "hpersist"} {
		steps = append(steps,
			fails(wrongType, cmd, "str", "FIELDS", "1", "a"),
			fails(fieldsCount, cmd, "h", "FIELDS", "2", "a"),
			fails(readNumMsg, cmd, "h", "FIELDS", "x", "a"),
			fails(readNumMsg, cmd, "h", "FIELDS", "0", "a"),
			fails(fieldsMissing, cmd, "h", "NOPE", "1", "a"),
			reply([]any{int64(-2), int64(-2)}, cmd, "nokey", "FIELDS", "2", "a", "b"),
		)
	}
	steps = append(steps,
		// The 46-bit ceiling on both forms of each unit.
		reply([]any{int64(1)}, "hpexpireat", "h", "70368744177663", "FIELDS", "1", "a"),
		fails("ERR invalid expire time in 'hpexpireat' command", "hpexpireat", "h", "70368744177664", "FIELDS", "1", "a"),
		reply([]any{int64(1)}, "hexpireat", "h", "70368744177", "FIELDS", "1", "a"),
		fails("ERR invalid expire time in 'hexpireat' command", "hexpireat", "h", "70368744178", "FIELDS", "1", "a"),
		fails("ERR invalid expire time in 'hexpire' command", "hexpire", "h", "1000000000000", "FIELDS", "1", "a"),
		fails("ERR invalid expire time in 'hpexpire' command", "hpexpire", "h", "70368744177664", "FIELDS", "1", "a"),
		reply([]any{int64(-2), int64(-2)}, "hexpire", "nokey", "100", "FIELDS", "2", "a", "b"),
		reply([]any{int64(1)}, "hexpire", "h", "100", "nx", "fields", "1", "b"),
		// HGETEX, HSETEX, HGETDEL.
		fails(wrongType, "hgetex", "str", "FIELDS", "1", "a"),
		fails(fieldsMissing, "hgetex", "h", "EX", "10", "NOPE", "1", "a"),
		fails(fieldsMissing, "hgetex", "h", "BOGUS", "1", "a"),
		fails(readNumMsg, "hgetex", "h", "FIELDS", "0", "a"),
		fails(fieldsCount, "hgetex", "h", "PERSIST", "FIELDS", "2", "a"),
		fails("ERR invalid expire time, must be >= 0", "hgetex", "h", "EX", "-1", "FIELDS", "1", "a"),
		fails("ERR invalid expire time in 'hgetex' command", "hgetex", "h", "PX", "70368744177664", "FIELDS", "1", "a"),
		reply([]any{nil, nil}, "hgetex", "nokey", "EX", "10", "FIELDS", "2", "a", "b"),
		fails("ERR unknown argument: BOGUS", "hsetex", "h", "BOGUS", "FIELDS", "1", "a", "1"),
		fails("ERR Only one of FXX or FNX arguments can be specified", "hsetex", "h", "FXX", "FNX", "FIELDS", "1", "a", "1"),
		fails("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified", "hsetex", "h", "EX", "1", "KEEPTTL", "FIELDS", "1", "a", "1"),
		fails("ERR invalid number of fields", "hsetex", "h", "FIELDS", "0", "a", "1"),
		fails("ERR wrong number of arguments for 'hsetex' command", "hsetex", "h", "FIELDS", "2", "a", "1"),
		fails("ERR invalid expire time, must be >= 0", "hsetex", "h", "EX", "-5", "FIELDS", "1", "a", "1"),
		fails(wrongType, "hsetex", "str", "FIELDS", "1", "a", "1"),
		reply(int64(0), "hsetex", "nokey", "FXX", "FIELDS", "1", "a", "1"),
		fails(wrongType, "hgetdel", "str", "FIELDS", "1", "a"),
		fails(readNumMsg, "hgetdel", "h", "FIELDS", "0", "a"),
		fails(fieldsCount, "hgetdel", "h", "FIELDS", "2", "a", "b", "c"),
		fails(fieldsMissing, "hgetdel", "h", "XFIELDX", "1", "a"),
	)
	runSteps(t, e, c, steps)
}

// TestHExpireConditions is the NX/XX/GT/LT matrix: a field without an
// expiry counts as infinite.
func TestHExpireConditions(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	now := e.clock.Now().UnixMilli()
	far := now + 3_600_000
	fs := strconv.FormatInt
	for _, cs := range []struct {
		cond string
		want int64
		ttl  int64
	}{{"NX", 1, 100}, {"XX", 0, -1}, {"GT", 0, -1}, {"LT", 1, 100}} {
		k := "persistent:" + cs.cond
		runSteps(t, e, c, []step{
			reply(int64(1), "hset", k, "f", "v"),
			reply([]any{cs.want}, "hexpire", k, "100", cs.cond, "FIELDS", "1", "f"),
			reply([]any{cs.ttl}, "httl", k, "FIELDS", "1", "f"),
		})
	}
	for _, cs := range []struct {
		cond  string
		delta int64
		want  int64
	}{{"NX", 1000, 0}, {"XX", 1000, 1}, {"GT", 1000, 1}, {"GT", -1000, 0}, {"GT", 0, 0},
		{"LT", -1000, 1}, {"LT", 1000, 0}, {"LT", 0, 0}} {
		deadline := far
		if cs.want == 1 {
			deadline = far + cs.delta
		}
		k := "volatile:" + cs.cond + fs(cs.delta, 10)
		runSteps(t, e, c, []step{
			reply(int64(1), "hset", k, "f", "v"),
			reply([]any{int64(1)}, "hpexpireat", k, fs(far, 10), "FIELDS", "1", "f"),
			reply([]any{cs.want}, "hpexpireat", k, fs(far+cs.delta, 10), cs.cond, "FIELDS", "1", "f"),
			reply([]any{deadline}, "hpexpiretime", k, "FIELDS", "1", "f"),
		})
	}
	runSteps(t, e, c, []step{
		// A condition not met never deletes, even with a past time.
		reply(int64(1), "hset", "k", "f", "v"),
		reply([]any{int64(1)}, "hpexpireat", "k", fs(far, 10), "FIELDS", "1", "f"),
		reply([]any{int64(0)}, "hexpireat", "k", "1", "NX", "FIELDS", "1", "f"),
		reply(int64(1), "hexists", "k", "f"),
		reply([]any{int64(2)}, "hexpireat", "k", "1", "XX", "FIELDS", "1", "f"),
		reply(int64(0), "exists", "k"),
		reply(int64(3), "hset", "m", "a", "1", "b", "2", "c", "3"),
		reply([]any{int64(1)}, "hpexpireat", "m", fs(far, 10), "FIELDS", "1", "a"),
		reply([]any{int64(0), int64(1), int64(-2), int64(1)}, "hexpire", "m", "100", "NX", "FIELDS", "4", "a", "b", "nosuch", "c"),
		reply([]any{int64(100), int64(100)}, "httl", "m", "FIELDS", "2", "b", "b"),
	})
}

func TestHExpireReadsAndWrites(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	now := e.clock.Now().UnixMilli()
	deadline := now + 100_400
	runSteps(t, e, c, []step{
		reply(int64(2), "hset", "k", "a", "1", "b", "2"),
		reply([]any{int64(1)}, "hpexpireat", "k", strconv.FormatInt(deadline, 10), "FIELDS", "1", "a"),
		reply([]any{deadline}, "hpexpiretime", "k", "FIELDS", "1", "a"),
		reply([]any{(deadline + 999) / 1000}, "hexpiretime", "k", "FIELDS", "1", "a"),
		reply([]any{int64(100_400)}, "hpttl", "k", "FIELDS", "1", "a"),
		reply([]any{int64(101), int64(-1), int64(-2)}, "httl", "k", "FIELDS", "3", "a", "b", "zz"),
		reply([]any{int64(1), int64(-1), int64(-2)}, "hpersist", "k", "FIELDS", "3", "a", "b", "zz"),
		reply([]any{int64(-1)}, "hpersist", "k", "FIELDS", "1", "a"),
		// Value writes clear a field's expiry, counter writes keep it.
		reply([]any{int64(1), int64(1)}, "hexpire", "k", "100", "FIELDS", "2", "a", "b"),
		reply(int64(0), "hset", "k", "a", "9"),
		reply([]any{int64(-1), int64(100)}, "httl", "k", "FIELDS", "2", "a", "b"),
		reply(int64(3), "hincrby", "k", "b", "1"),
		reply("3.5", "hincrbyfloat", "k", "b", "0.5"),
		reply(int64(0), "hsetnx", "k", "b", "0"),
		reply([]any{int64(100)}, "httl", "k", "FIELDS", "1", "b"),
		reply([]any{int64(1)}, "hexpire", "k", "100", "FIELDS", "1", "a"),
		ok("hmset", "k", "a", "z"),
		reply([]any{int64(-1)}, "httl", "k", "FIELDS", "1", "a"),
		// HDEL drops the expiry; a re-added field has none.
		reply(int64(1), "hdel", "k", "b"),
		reply(int64(1), "hset", "k", "b", "5"),
		reply([]any{int64(-1)}, "httl", "k", "FIELDS", "1", "b"),
		// Past deadlines delete at once; the last field takes the key.
		reply([]any{int64(2), int64(-2)}, "hexpireat", "k", "1", "FIELDS", "2", "a", "zz"),
		reply(int64(1), "hlen", "k"),
		reply([]any{int64(2)}, "hpexpireat", "k", strconv.FormatInt(now, 10), "FIELDS", "1", "b"),
		reply(int64(0), "exists", "k"),
		reply("none", "type", "k"),
		// HGETEX, HSETEX, HGETDEL.
		reply(int64(1), "hsetex", "g", "FNX", "EX", "50", "FIELDS", "2", "a", "1", "b", "2"),
		reply([]any{int64(50), int64(50)}, "httl", "g", "FIELDS", "2", "a", "b"),
		reply(int64(0), "hsetex", "g", "FNX", "FIELDS", "1", "a", "x"),
		reply(int64(1), "hsetex", "g", "FXX", "KEEPTTL", "FIELDS", "1", "a", "x"),
		reply([]any{int64(50)}, "httl", "g", "FIELDS", "1", "a"),
		reply(int64(1), "hsetex", "g", "FIELDS", "1", "a", "y"),
		reply([]any{int64(-1)}, "httl", "g", "FIELDS", "1", "a"),
		reply([]any{"y", nil}, "hgetex", "g", "PX", "5000", "FIELDS", "2", "a", "zz"),
		reply([]any{int64(5000)}, "hpttl", "g", "FIELDS", "1", "a"),
		reply([]any{"y"}, "hgetex", "g", "PERSIST", "FIELDS", "1", "a"),
		reply([]any{int64(-1)}, "httl", "g", "FIELDS", "1", "a"),
		reply([]any{"2", nil}, "hgetdel", "g", "FIELDS", "2", "b", "zz"),
		reply([]any{"y"}, "hgetex", "g", "EXAT", "1", "FIELDS", "1", "a"),
		reply(int64(0), "exists", "g"),
	})
}

// TestFieldExpiryVisibilityAndReap: expired fields are invisible to every
// read (HLEN included, unlike Redis), and the field source deletes them
// with `hexpired` (and `del` with the last one).
func TestFieldExpiryVisibilityAndReap(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(3), "hset", "k", "a", "1", "b", "2", "c", "3"),
		reply([]any{int64(1), int64(1)}, "hpexpire", "k", "250", "FIELDS", "2", "a", "b"),
		reply(int64(3), "hlen", "k"),
		reply(int64(1), "hset", "solo", "f", "v"),
		reply([]any{int64(1)}, "hpexpire", "solo", "200", "FIELDS", "1", "f"),
	})
	if got := next(4); !reflect.DeepEqual(got, []string{"hset k", "hexpire k", "hset solo", "hexpire solo"}) {
		t.Fatalf("events %v", got)
	}
	e.clock.Advance(450 * time.Millisecond)
	runSteps(t, e, c, []step{
		reply(int64(1), "hlen", "k"),
		reply(nil, "hget", "k", "a"),
		reply(int64(0), "hexists", "k", "b"),
		reply(int64(0), "hstrlen", "k", "b"),
		reply([]any{nil, nil, "3"}, "hmget", "k", "a", "b", "c"),
		reply([]any{"c", "3"}, "hgetall", "k"),
		reply([]any{"c"}, "hkeys", "k"),
		reply([]any{"3"}, "hvals", "k"),
		reply([]any{"c", "c", "c"}, "hrandfield", "k", "-3"),
		reply([]any{"0", []any{"c", "3"}}, "hscan", "k", "0"),
		reply([]any{int64(-2), int64(-2)}, "httl", "k", "FIELDS", "2", "a", "b"),
	})
	if got := next(1); !reflect.DeepEqual(got, []string{"hexpired k"}) {
		t.Fatalf("events %v", got)
	}
	// Nobody touches solo: the field source reaps it and the key goes.
	if n := reapFields(e); n != 1 {
		t.Fatalf("reaped %d fields", n)
	}
	if got := next(2); !reflect.DeepEqual(got, []string{"hexpired solo", "del solo"}) {
		t.Fatalf("events %v", got)
	}
	runSteps(t, e, c, []step{
		reply(int64(1), "dbsize"),
		reply(int64(0), "exists", "solo"),
	})
}

func TestFieldExpiryEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(2), "hset", "k", "a", "1", "b", "2"),
		reply([]any{int64(1)}, "hexpire", "k", "100", "FIELDS", "1", "a"),
		reply([]any{int64(0)}, "hexpire", "k", "100", "XX", "FIELDS", "1", "b"),
		reply([]any{int64(1)}, "hpersist", "k", "FIELDS", "1", "a"),
		reply([]any{int64(-1)}, "hpersist", "k", "FIELDS", "1", "a"),
		reply([]any{int64(2)}, "hexpire", "k", "0", "FIELDS", "1", "a"),
		reply(int64(1), "hsetex", "k", "EX", "10", "FIELDS", "1", "c", "3"),
		reply([]any{"2"}, "hgetdel", "k", "FIELDS", "1", "b"),
		reply([]any{"3"}, "hgetex", "k", "EX", "0", "FIELDS", "1", "c"),
	})
	want := []string{"hset k", "hexpire k", "hpersist k", "hdel k", "hset k", "hexpire k", "hdel k", "hdel k", "del k"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
