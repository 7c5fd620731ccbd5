package resp

import (
	"errors"

	"github.com/mayfly/mayfly/internal/kv"
)

// replyErr is an error reply in Redis's words, code first.
type replyErr string

func (e replyErr) Error() string { return string(e) }

// The error replies used by more than one command.
var (
	errSyntax      = replyErr("ERR syntax error")
	errNotInt      = replyErr("ERR value is not an integer or out of range")
	errNotFloat    = replyErr("ERR value is not a valid float")
	errWrongType   = replyErr("WRONGTYPE Operation against a key holding the wrong kind of value")
	errNoAuth      = replyErr("NOAUTH Authentication required.")
	errWrongPass   = replyErr("WRONGPASS invalid username-password pair or user is disabled.")
	errDBIndex     = replyErr("ERR DB index is out of range")
	errSameObject  = replyErr("ERR source and destination objects are the same")
	errNoSuchKey   = replyErr("ERR no such key")
	errInvalidCurs = replyErr("ERR invalid cursor")

	errStringTooLong = replyErr("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
)

// errInvalidExpire is Redis's "invalid expire time in '<cmd>' command".
func errInvalidExpire(cmd string) replyErr {
	return replyErr("ERR invalid expire time in '" + cmd + "' command")
}

// errArity is Redis's wrong-number-of-arguments error.
func errArity(cmd string) replyErr {
	return replyErr("ERR wrong number of arguments for '" + cmd + "' command")
}

// kvReplies is the one mapping from kv's sentinel errors to the error
// replies Redis gives for the same condition. ErrInvalidExpire is not here:
// its reply names the command (errInvalidExpire).
var kvReplies = []struct {
	err   error
	reply replyErr
}{
	{kv.ErrWrongType, errWrongType},
	{kv.ErrNotHLL, "WRONGTYPE Key is not a valid HyperLogLog string value."},
	{kv.ErrCorruptHLL, "INVALIDOBJ Corrupted HLL object detected"},
	{kv.ErrNotInteger, errNotInt},
	{kv.ErrNotFloat, errNotFloat},
	{kv.ErrHashNotInteger, "ERR hash value is not an integer"},
	{kv.ErrHashNotFloat, "ERR hash value is not a float"},
	{kv.ErrSortNotDouble, "ERR One or more scores can't be converted into double"},
	{kv.ErrOverflow, "ERR increment or decrement would overflow"},
	{kv.ErrNaNOrInf, "ERR increment would produce NaN or Infinity"},
	{kv.ErrIncrNaNOrInf, "ERR value is NaN or Infinity"},
	{kv.ErrNaNScore, "ERR resulting score is not a number (NaN)"},
	{kv.ErrNoSuchKey, errNoSuchKey},
	{kv.ErrSameObject, errSameObject},
	{kv.ErrDBIndex, errDBIndex},
	{kv.ErrIndexOutOfRange, "ERR index out of range"},
	{kv.ErrStringTooLong, errStringTooLong},
	{kv.ErrOffsetRange, "ERR offset is out of range"},
	// Redis accepts a negative count of any size and streams the picks
	// until the output buffer limit closes the client; mayfly refuses one
	// beyond kv.MaxRandomPicks as Redis words an out-of-range count.
	{kv.ErrTooManyPicks, "ERR value is out of range"},
	{kv.ErrNotPrimary, errReadOnlyReplica},
}

// commandError turns an error a command returned into the error reply:
// replyErr as it is, kv's sentinels through kvReplies, anything unexpected
// to a generic ERR with its text.
func commandError(err error, cmd string) replyErr {
	var re replyErr
	if errors.As(err, &re) {
		return re
	}
	if errors.Is(err, kv.ErrInvalidExpire) {
		return errInvalidExpire(cmd)
	}
	for _, m := range kvReplies {
		if errors.Is(err, m.err) {
			return m.reply
		}
	}
	return replyErr("ERR " + err.Error())
}
