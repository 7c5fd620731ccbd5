package kv

import "errors"

// Sentinel errors returned by kv operations. The wire layer maps each to the
// reply Redis gives; kv itself never produces protocol text.
var (
	// ErrWrongType is returned when an operation meets a key holding another
	// type (Redis WRONGTYPE).
	ErrWrongType = errors.New("kv: operation against a key holding the wrong kind of value")
	// ErrNotInteger is returned when a stored value or argument is not an
	// integer in the signed 64-bit range.
	ErrNotInteger = errors.New("kv: value is not an integer or out of range")
	// ErrNotFloat is returned when a stored value or argument is not a
	// valid float.
	ErrNotFloat = errors.New("kv: value is not a valid float")
	// ErrOverflow is returned when INCR/DECR would overflow 64 bits.
	ErrOverflow = errors.New("kv: increment or decrement would overflow")
	// ErrNaNOrInf is returned when INCRBYFLOAT would produce NaN or infinity.
	ErrNaNOrInf = errors.New("kv: increment would produce NaN or Infinity")
	// ErrNoSuchKey is returned by RENAME when the source key does not exist.
	ErrNoSuchKey = errors.New("kv: no such key")
	// ErrSameObject is returned by MOVE and COPY when source and destination
	// are the same key in the same database.
	ErrSameObject = errors.New("kv: source and destination objects are the same")
	// ErrDBIndex is returned when a logical database index is out of range.
	ErrDBIndex = errors.New("kv: database index is out of range")
	// ErrStringTooLong is returned when a string would exceed the maximum
	// string size.
	ErrStringTooLong = errors.New("kv: string exceeds maximum allowed size")
	// ErrOffsetRange is returned by SETRANGE for a negative offset.
	ErrOffsetRange = errors.New("kv: offset is out of range")
	// ErrInvalidExpire is returned for an expiry time that is out of range
	// or, where Redis requires it, not positive.
	ErrInvalidExpire = errors.New("kv: invalid expire time")
	// ErrCorrupt is returned when a stored record cannot be decoded.
	ErrCorrupt = errors.New("kv: corrupt record")
	// ErrClosed is returned by operations on a closed Store.
	ErrClosed = errors.New("kv: closed")
)
