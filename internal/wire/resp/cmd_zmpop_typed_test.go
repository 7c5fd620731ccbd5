package resp_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTypedClientCommands runs go-redis's typed methods for the sorted set
// and list pops and ranges in both protocols: the reply shapes must parse
// as the client expects them from Redis.
func TestTypedClientCommands(t *testing.T) {
	e := newEnv(t)
	for _, proto := range []int{2, 3} {
		c := e.client(proto)
		if err := c.FlushAll(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		typedSortedSetPops(t, c, proto)
		typedLexRanges(t, c, proto)
		typedListPops(t, c, proto)
	}
}

// typedMust fails the test on err, naming the protocol.
func typedMust(t *testing.T, proto int, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("RESP%d: %v", proto, err)
	}
}

// typedSortedSetPops checks the sorted set ranges, random picks and pops, blocking or not.
func typedSortedSetPops(t *testing.T, c *redis.Client, proto int) {
	ctx := t.Context()
	typedMust(t, proto, c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"}, redis.Z{Score: 4, Member: "d"}).Err())
	if v, err := c.ZRevRangeWithScores(ctx, "z", 0, 1).Result(); err != nil || !reflect.DeepEqual(v, []redis.Z{{Score: 4, Member: "d"}, {Score: 3, Member: "c"}}) {
		t.Fatalf("RESP%d ZRevRangeWithScores %v %v", proto, v, err)
	}
	if v, err := c.ZRandMemberWithScores(ctx, "z", 10).Result(); err != nil || len(v) != 4 || v[0] != (redis.Z{Score: 4, Member: "d"}) {
		t.Fatalf("RESP%d ZRandMemberWithScores %v %v", proto, v, err)
	}
	if n, err := c.ZInterCard(ctx, 0, "z", "z").Result(); err != nil || n != 4 {
		t.Fatalf("RESP%d ZInterCard %v %v", proto, n, err)
	}
	key, els, err := c.ZMPop(ctx, "max", 2, "nokey", "z").Result()
	if err != nil || key != "z" || !reflect.DeepEqual(els, []redis.Z{{Score: 4, Member: "d"}, {Score: 3, Member: "c"}}) {
		t.Fatalf("RESP%d ZMPop %q %v %v", proto, key, els, err)
	}
	if _, _, err := c.ZMPop(ctx, "min", 1, "nokey").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("RESP%d ZMPop on nothing: %v", proto, err)
	}
	zk, err := c.BZPopMin(ctx, time.Second, "nokey", "z").Result()
	if err != nil || zk.Key != "z" || zk.Z != (redis.Z{Score: 1, Member: "a"}) {
		t.Fatalf("RESP%d BZPopMin %+v %v", proto, zk, err)
	}
	key, els, err = c.BZMPop(ctx, time.Second, "min", 5, "z").Result()
	if err != nil || key != "z" || !reflect.DeepEqual(els, []redis.Z{{Score: 2, Member: "b"}}) {
		t.Fatalf("RESP%d BZMPop %q %v %v", proto, key, els, err)
	}
}

// typedLexRanges checks the lexicographic ranges of a sorted set.
func typedLexRanges(t *testing.T, c *redis.Client, proto int) {
	ctx := t.Context()
	typedMust(t, proto, c.ZAdd(ctx, "lex", redis.Z{Member: "a"}, redis.Z{Member: "b"}, redis.Z{Member: "c"}).Err())
	//lint:ignore SA1019 clients still call the deprecated command, which the server must answer
	if v, err := c.ZRangeByLex(ctx, "lex", &redis.ZRangeBy{Min: "(a", Max: "+"}).Result(); err != nil || !slices.Equal(v, []string{"b", "c"}) {
		t.Fatalf("RESP%d ZRangeByLex %v %v", proto, v, err)
	}
	//lint:ignore SA1019 as above
	if v, err := c.ZRevRangeByLex(ctx, "lex", &redis.ZRangeBy{Min: "-", Max: "+", Offset: 1, Count: 1}).Result(); err != nil || !slices.Equal(v, []string{"b"}) {
		t.Fatalf("RESP%d ZRevRangeByLex %v %v", proto, v, err)
	}
	if n, err := c.ZLexCount(ctx, "lex", "[b", "+").Result(); err != nil || n != 2 {
		t.Fatalf("RESP%d ZLexCount %v %v", proto, n, err)
	}
	if n, err := c.ZRemRangeByLex(ctx, "lex", "-", "(c").Result(); err != nil || n != 2 {
		t.Fatalf("RESP%d ZRemRangeByLex %v %v", proto, n, err)
	}
}

// typedListPops checks the list pops, blocking or not, and the blocking timeouts.
func typedListPops(t *testing.T, c *redis.Client, proto int) {
	ctx := t.Context()
	typedMust(t, proto, c.RPush(ctx, "l", "1", "2", "3").Err())
	lk, vals, err := c.LMPop(ctx, "right", 2, "nokey", "l").Result()
	if err != nil || lk != "l" || !slices.Equal(vals, []string{"3", "2"}) {
		t.Fatalf("RESP%d LMPop %q %v %v", proto, lk, vals, err)
	}
	lk, vals, err = c.BLMPop(ctx, time.Second, "left", 5, "l").Result()
	if err != nil || lk != "l" || !slices.Equal(vals, []string{"1"}) {
		t.Fatalf("RESP%d BLMPop %q %v %v", proto, lk, vals, err)
	}
	typedMust(t, proto, c.RPush(ctx, "src", "x").Err())
	//lint:ignore SA1019 as above
	if v, err := c.BRPopLPush(ctx, "src", "dst", time.Second).Result(); err != nil || v != "x" {
		t.Fatalf("RESP%d BRPopLPush %q %v", proto, v, err)
	}
	// go-redis rounds timeouts up to a second: the timeouts go raw.
	for _, args := range [][]any{{"bzpopmax", "z", "0.01"}, {"blmpop", "0.01", "1", "l", "left"}, {"brpoplpush", "src", "dst", "0.01"}} {
		if _, err := c.Do(ctx, args...).Result(); !errors.Is(err, redis.Nil) {
			t.Fatalf("RESP%d %v timeout: %v", proto, args, err)
		}
	}
}
