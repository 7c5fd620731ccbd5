package keycodec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Tag bytes. Every encoded value starts with one of these bytes, and the
// numeric order of the tags is MongoDB's canonical type order
// (canonicalizeBSONType). Gaps are left between the canonical types so that
// a type can gain sub-tags later without renumbering the others. No tag is
// 0x00 or 0xFF, so type bounds never have to carry or borrow.
const (
	tagMinKey    byte = 0x05
	tagUndefined byte = 0x0A
	tagNull      byte = 0x0F

	// Numbers occupy a contiguous run of tags: the tag carries the sign,
	// the special values and, for moderate magnitudes, the exponent.
	tagNaN          byte = 0x14
	tagNegInf       byte = 0x15
	tagNegLarge     byte = 0x16 // negative, exponent > mediumMaxExp
	tagNegMedium    byte = 0x17 // 0x17..0x21: negative, exponent mediumMaxExp..0
	tagNegSmall     byte = 0x22 // negative, exponent < 0
	tagZero         byte = 0x23
	tagPosSmall     byte = 0x24 // positive, exponent < 0
	tagPosMedium    byte = 0x25 // 0x25..0x2F: positive, exponent 0..mediumMaxExp
	tagPosLarge     byte = 0x30 // positive, exponent > mediumMaxExp
	tagPosInf       byte = 0x31
	tagNumbersFirst      = tagNaN
	tagNumbersLast       = tagPosInf

	tagString        byte = 0x3C // strings and symbols
	tagObject        byte = 0x46
	tagArray         byte = 0x50
	tagBinary        byte = 0x5A
	tagObjectID      byte = 0x64
	tagFalse         byte = 0x6E
	tagTrue          byte = 0x6F
	tagDateTime      byte = 0x78
	tagTimestamp     byte = 0x82
	tagRegex         byte = 0x8C
	tagDBPointer     byte = 0x96
	tagJavaScript    byte = 0xA0
	tagCodeWithScope byte = 0xAA
	tagMaxKey        byte = 0xF0

	// tagEnd closes an object or an array. It sorts below every value tag,
	// so a document or array that is a prefix of another sorts first.
	tagEnd byte = 0x00
)

// mediumMaxExp is the largest base-100 exponent that is folded into the tag
// byte. Every int64 has an exponent in 1..10, so integers never need an
// exponent byte.
const mediumMaxExp = 10

// typeRange returns the first and last tag byte used by the canonical type
// of t. All BSON types that MongoDB compares as one type (the four numeric
// types; string and symbol) share a range.
func typeRange(t bson.Type) (first, last byte, err error) {
	switch t {
	case bson.TypeMinKey:
		return tagMinKey, tagMinKey, nil
	case bson.TypeUndefined:
		return tagUndefined, tagUndefined, nil
	case bson.TypeNull:
		return tagNull, tagNull, nil
	case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
		return tagNumbersFirst, tagNumbersLast, nil
	case bson.TypeString, bson.TypeSymbol:
		return tagString, tagString, nil
	case bson.TypeEmbeddedDocument:
		return tagObject, tagObject, nil
	case bson.TypeArray:
		return tagArray, tagArray, nil
	case bson.TypeBinary:
		return tagBinary, tagBinary, nil
	case bson.TypeObjectID:
		return tagObjectID, tagObjectID, nil
	case bson.TypeBoolean:
		return tagFalse, tagTrue, nil
	case bson.TypeDateTime:
		return tagDateTime, tagDateTime, nil
	case bson.TypeTimestamp:
		return tagTimestamp, tagTimestamp, nil
	case bson.TypeRegex:
		return tagRegex, tagRegex, nil
	case bson.TypeDBPointer:
		return tagDBPointer, tagDBPointer, nil
	case bson.TypeJavaScript:
		return tagJavaScript, tagJavaScript, nil
	case bson.TypeCodeWithScope:
		return tagCodeWithScope, tagCodeWithScope, nil
	case bson.TypeMaxKey:
		return tagMaxKey, tagMaxKey, nil
	}
	return 0, 0, fmt.Errorf("%w: bson type %#x", ErrUnsupportedType, byte(t))
}

// classOf returns the canonical-type class byte of a value tag: the first
// tag of the range that holds it. It is written before field names inside
// objects, because MongoDB compares the canonical type of two elements
// before their names. ok is false for bytes that are not value tags.
func classOf(tag byte) (class byte, ok bool) {
	switch {
	case tag >= tagNumbersFirst && tag <= tagNumbersLast:
		return tagNumbersFirst, true
	case tag == tagTrue:
		return tagFalse, true
	case isSingleTag(tag):
		return tag, true
	}
	return 0, false
}

// isSingleTag reports whether tag is a value tag whose canonical type uses
// exactly that one tag.
func isSingleTag(tag byte) bool {
	switch tag {
	case tagMinKey, tagUndefined, tagNull, tagString, tagObject, tagArray,
		tagBinary, tagObjectID, tagFalse, tagDateTime, tagTimestamp, tagRegex,
		tagDBPointer, tagJavaScript, tagCodeWithScope, tagMaxKey:
		return true
	}
	return false
}
