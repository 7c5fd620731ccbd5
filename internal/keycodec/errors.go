package keycodec

import "errors"

var (
	// ErrUnsupportedType is returned when a Go value has no BSON meaning to
	// the encoder (for example a bson.M, whose field order is random, or a
	// uint), or when a BSON type byte is unknown.
	ErrUnsupportedType = errors.New("keycodec: unsupported type")

	// ErrInvalidBSON is returned when a raw BSON value (bson.RawValue,
	// bson.Raw, bson.RawArray) is malformed.
	ErrInvalidBSON = errors.New("keycodec: invalid bson")

	// ErrCorrupt is returned by DecodeValue when its input is not a
	// canonical encoding produced by this package.
	ErrCorrupt = errors.New("keycodec: corrupt key")

	// ErrTooDeep is returned when documents and arrays nest deeper than
	// MaxDepth levels.
	ErrTooDeep = errors.New("keycodec: nesting too deep")
)

// MaxDepth is the deepest nesting of documents and arrays that the encoder
// and the decoder accept (MongoDB's own limit on stored documents is 100 plus
// a small margin for internal wrapping, so 200 is never reached by valid
// data). The limit protects against unbounded recursion on cyclic Go values
// and on hostile input to DecodeValue.
const MaxDepth = 200
