package resp_test

import (
	"strings"
	"testing"
)

// extremes are the integers at and near the ends of the 64-bit range, and
// halfway there, that offsets, indexes and counts must survive.
var extremes = []string{
	"9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807",
	"4611686018427387904", "-4611686018427387904", "4294967296", "2147483648", "-1", "0",
}

// Ensure that no command with an offset, index, size or count argument
// fails internally (a recovered panic) on any extreme value: each gets a
// reply or the error Redis gives.
func TestExtremeIntegerArguments(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	runSteps(t, e, c, []step{
		ok("set", "s", "hello"),
		reply(int64(3), "rpush", "l", "a", "b", "c"),
		reply(int64(2), "hset", "h", "f", "1", "g", "2"),
		reply(int64(2), "sadd", "set", "a", "b"),
		reply(int64(2), "zadd", "z", "1", "a", "2", "b"),
	})
	templates := [][]string{
		{"setrange", "s", "N", "x"}, {"setrange", "new", "N", "x"}, {"getrange", "s", "N", "N"},
		{"getrange", "s", "0", "N"}, {"substr", "s", "N", "N"}, {"incrby", "cnt", "N"}, {"decrby", "cnt", "N"},
		{"lrange", "l", "N", "N"}, {"lrange", "l", "0", "N"}, {"lrange", "l", "N", "0"}, {"lindex", "l", "N"},
		{"lset", "l", "N", "v"}, {"ltrim", "l2", "N", "N"}, {"lrem", "l", "N", "zz"},
		{"lpos", "l", "a", "RANK", "N"}, {"lpos", "l", "a", "COUNT", "N"}, {"lpos", "l", "a", "MAXLEN", "N"},
		{"lpop", "l2", "N"}, {"rpop", "l2", "N"}, {"lmpop", "1", "l2", "LEFT", "COUNT", "N"},
		{"srandmember", "set", "N"}, {"spop", "set2", "N"}, {"hrandfield", "h", "N"}, {"hrandfield", "h", "N", "WITHVALUES"},
		{"zrandmember", "z", "N"}, {"zrandmember", "z", "N", "WITHSCORES"}, {"zrange", "z", "N", "N"},
		{"zrange", "z", "0", "N"}, {"zrange", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "N", "N"},
		{"zrangebyscore", "z", "-inf", "+inf", "LIMIT", "N", "N"}, {"zrangebylex", "z", "-", "+", "LIMIT", "N", "N"},
		{"zremrangebyrank", "z2", "N", "N"}, {"zrevrange", "z", "N", "N"}, {"zpopmin", "z2", "N"}, {"zpopmax", "z2", "N"},
		{"zmpop", "1", "z2", "MIN", "COUNT", "N"}, {"zintercard", "1", "z", "LIMIT", "N"}, {"sintercard", "1", "set", "LIMIT", "N"},
		{"sort", "l", "LIMIT", "N", "N", "ALPHA"}, {"scan", "0", "COUNT", "N"}, {"sscan", "set", "0", "COUNT", "N"},
		{"hscan", "h", "0", "COUNT", "N"}, {"zscan", "z", "0", "COUNT", "N"}, {"expire", "e", "N"}, {"pexpire", "e", "N"},
		{"expireat", "e", "N"}, {"pexpireat", "e", "N"}, {"set", "e", "v", "EX", "N"}, {"set", "e", "v", "PX", "N"},
		{"set", "e", "v", "EXAT", "N"}, {"set", "e", "v", "PXAT", "N"}, {"getex", "s", "EX", "N"}, {"getex", "s", "PXAT", "N"},
		{"setex", "e", "N", "v"}, {"psetex", "e", "N", "v"}, {"hincrby", "h", "f", "N"}, {"hexpire", "h", "N", "FIELDS", "1", "f"},
		{"hpexpire", "h", "N", "FIELDS", "1", "g"}, {"hexpireat", "h", "N", "FIELDS", "1", "f"}, {"select", "N"},
		{"move", "s", "N"}, {"copy", "s", "s2", "DB", "N"}, {"swapdb", "0", "N"}, {"object", "freq", "s"},
		{"blpop", "l2", "N"}, {"brpop", "l2", "N"}, {"bzpopmin", "z2", "N"}, {"blmpop", "N", "1", "l2", "LEFT"},
	}
	for _, tpl := range templates {
		for _, n := range extremes {
			args := make([]any, len(tpl))
			for i, a := range tpl {
				if a == "N" {
					a = n
				}
				args[i] = a
			}
			if strings.HasPrefix(tpl[0], "b") && n != "-1" && n != "-9223372036854775808" {
				continue // a valid timeout would block
			}
			err := c.Do(ctx, args...).Err()
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Errorf("%v: %v", args, err)
			}
		}
	}
	runSteps(t, e, c, []step{
		ok("set", "s", "hello"),
		fails("ERR string exceeds maximum allowed size (proto-max-bulk-len)", "setrange", "s", "9223372036854775807", "x"),
		fails("ERR string exceeds maximum allowed size (proto-max-bulk-len)", "setrange", "new", "9223372036854775806", "xy"),
		fails("ERR string exceeds maximum allowed size (proto-max-bulk-len)", "setrange", "s", "536870912", "x"),
		reply(int64(5), "setrange", "s", "9223372036854775807", ""),
		reply(int64(0), "setrange", "missing", "9223372036854775807", ""),
		fails("ERR offset is out of range", "setrange", "s", "-1", "x"),
		reply("", "getrange", "s", "9223372036854775807", "9223372036854775807"),
		reply("hello", "getrange", "s", "-9223372036854775808", "9223372036854775807"),
	})
}
