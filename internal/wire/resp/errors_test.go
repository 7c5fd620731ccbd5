package resp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// TestCommandErrorReplies pins the reply of every kv sentinel, bare and
// wrapped with context, to Redis's words.
func TestCommandErrorReplies(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{kv.ErrWrongType, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{kv.ErrNotInteger, "ERR value is not an integer or out of range"},
		{kv.ErrNotFloat, "ERR value is not a valid float"},
		{kv.ErrHashNotInteger, "ERR hash value is not an integer"},
		{kv.ErrHashNotFloat, "ERR hash value is not a float"},
		{kv.ErrSortNotDouble, "ERR One or more scores can't be converted into double"},
		{kv.ErrOverflow, "ERR increment or decrement would overflow"},
		{kv.ErrNaNOrInf, "ERR increment would produce NaN or Infinity"},
		{kv.ErrIncrNaNOrInf, "ERR value is NaN or Infinity"},
		{kv.ErrNaNScore, "ERR resulting score is not a number (NaN)"},
		{kv.ErrNoSuchKey, "ERR no such key"},
		{kv.ErrSameObject, "ERR source and destination objects are the same"},
		{kv.ErrDBIndex, "ERR DB index is out of range"},
		{kv.ErrIndexOutOfRange, "ERR index out of range"},
		{kv.ErrStringTooLong, "ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
		{kv.ErrOffsetRange, "ERR offset is out of range"},
		{kv.ErrTooManyPicks, "ERR value is out of range"},
		{kv.ErrInvalidExpire, "ERR invalid expire time in 'getex' command"},
		{replyErr("ERR syntax error"), "ERR syntax error"},
		{errors.New("disk on fire"), "ERR disk on fire"},
	}
	for _, c := range cases {
		for _, err := range []error{c.err, fmt.Errorf("context: %w", c.err)} {
			got := string(commandError(err, "getex"))
			if err != c.err && c.want == "ERR disk on fire" {
				continue // an unknown error is answered with its whole text
			}
			if got != c.want {
				t.Errorf("commandError(%v) = %q, want %q", err, got, c.want)
			}
		}
	}
}
