package kv

import (
	"errors"

	"github.com/mayfly/mayfly/internal/hll"
)

// Sentinel errors returned by kv operations, grouped by when they occur.
// Callers test them with errors.Is (they may come wrapped with context);
// the protocol layer maps each to the reply its protocol gives, kv itself
// never produces protocol text.

// Errors of a key's type or a value that is not the number an operation
// needs.
var (
	// ErrWrongType is returned when an operation meets a key holding
	// another type.
	ErrWrongType = errors.New("kv: operation against a key holding the wrong kind of value")
	// ErrNotInteger is returned when a stored value or argument is not an
	// integer in the signed 64-bit range.
	ErrNotInteger = errors.New("kv: value is not an integer or out of range")
	// ErrNotFloat is returned when a stored value or argument is not a
	// valid float.
	ErrNotFloat = errors.New("kv: value is not a valid float")
	// ErrHashNotInteger is returned by HINCRBY when the field's value is
	// not an integer.
	ErrHashNotInteger = errors.New("kv: hash value is not an integer")
	// ErrHashNotFloat is returned by HINCRBYFLOAT when the field's value is
	// not a number.
	ErrHashNotFloat = errors.New("kv: hash value is not a float")
	// ErrSortNotDouble is returned by SORT without ALPHA when an element (or
	// its BY value) is not a number.
	ErrSortNotDouble = errors.New("kv: one or more scores can't be converted into double")
	// ErrNotHLL is returned by the HyperLogLog operations for a string
	// that is not a HyperLogLog.
	ErrNotHLL = hll.ErrInvalid
	// ErrCorruptHLL is returned by the HyperLogLog operations for a
	// HyperLogLog whose registers cannot be read.
	ErrCorruptHLL = hll.ErrCorrupt
)

// Errors of arithmetic whose result cannot be stored.
var (
	// ErrOverflow is returned when INCR/DECR would overflow 64 bits.
	ErrOverflow = errors.New("kv: increment or decrement would overflow")
	// ErrNaNOrInf is returned when INCRBYFLOAT would produce NaN or
	// infinity.
	ErrNaNOrInf = errors.New("kv: increment would produce NaN or Infinity")
	// ErrIncrNaNOrInf is returned by HINCRBYFLOAT for an increment or a
	// result that is NaN or infinite.
	ErrIncrNaNOrInf = errors.New("kv: value is NaN or Infinity")
	// ErrNaNScore is returned when an increment makes a sorted set score
	// NaN.
	ErrNaNScore = errors.New("kv: resulting score is not a number (NaN)")
)

// Errors of the keys, databases and positions an operation addresses.
var (
	// ErrNoSuchKey is returned by RENAME when the source key does not
	// exist.
	ErrNoSuchKey = errors.New("kv: no such key")
	// ErrSameObject is returned by MOVE and COPY when source and
	// destination are the same key in the same database.
	ErrSameObject = errors.New("kv: source and destination objects are the same")
	// ErrDBIndex is returned when a logical database index is out of
	// range.
	ErrDBIndex = errors.New("kv: database index is out of range")
	// ErrIndexOutOfRange is returned by LSET for an index outside the
	// list.
	ErrIndexOutOfRange = errors.New("kv: index out of range")
)

// Errors of sizes, offsets, counts and times beyond what kv accepts.
var (
	// ErrStringTooLong is returned when a string would exceed the maximum
	// string size.
	ErrStringTooLong = errors.New("kv: string exceeds maximum allowed size")
	// ErrOffsetRange is returned by SETRANGE for a negative offset.
	ErrOffsetRange = errors.New("kv: offset is out of range")
	// ErrInvalidExpire is returned for an expiry time that is out of range
	// or, where Redis requires it, not positive.
	ErrInvalidExpire = errors.New("kv: invalid expire time")
	// ErrTooManyPicks is returned for more than MaxRandomPicks picks with
	// repetition from an existing collection.
	ErrTooManyPicks = errors.New("kv: too many random picks")
)

// Errors of the store itself: its records and its life cycle.
var (
	// ErrCorrupt is returned when a stored record cannot be decoded.
	ErrCorrupt = errors.New("kv: corrupt record")
	// ErrFailed is returned by every Commit after a batch could not be
	// applied to storage; the store must be reopened.
	ErrFailed = errors.New("kv: store failed")
	// ErrClosed is returned by operations on a closed Store.
	ErrClosed = errors.New("kv: closed")
	// ErrStopped is returned by a walk over a database or a collection
	// that gave up because its Tx was told to stop (Tx.StopOn).
	ErrStopped = errors.New("kv: stopped")
)
