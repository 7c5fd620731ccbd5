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
)

// errInvalidExpire is Redis's "invalid expire time in '<cmd>' command".
func errInvalidExpire(cmd string) replyErr {
	return replyErr("ERR invalid expire time in '" + cmd + "' command")
}

// errArity is Redis's wrong-number-of-arguments error.
func errArity(cmd string) replyErr {
	return replyErr("ERR wrong number of arguments for '" + cmd + "' command")
}

// errorText maps an error to its reply text: kv's sentinels to Redis's
// words, anything unexpected to a generic ERR.
func errorText(err error) string {
	var re replyErr
	if errors.As(err, &re) {
		return string(re)
	}
	switch {
	case errors.Is(err, kv.ErrWrongType):
		return string(errWrongType)
	case errors.Is(err, kv.ErrNotInteger):
		return string(errNotInt)
	case errors.Is(err, kv.ErrNotFloat):
		return string(errNotFloat)
	case errors.Is(err, kv.ErrOverflow):
		return "ERR increment or decrement would overflow"
	case errors.Is(err, kv.ErrNaNOrInf):
		return "ERR increment would produce NaN or Infinity"
	case errors.Is(err, kv.ErrNoSuchKey):
		return string(errNoSuchKey)
	case errors.Is(err, kv.ErrSameObject):
		return string(errSameObject)
	case errors.Is(err, kv.ErrDBIndex):
		return string(errDBIndex)
	case errors.Is(err, kv.ErrStringTooLong):
		return "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	case errors.Is(err, kv.ErrOffsetRange):
		return "ERR offset is out of range"
	}
	return "ERR " + err.Error()
}
