// Package keycodec encodes BSON values into byte strings whose
// lexicographic order (bytes.Compare, Pebble's default comparer) is
// MongoDB's order of the values. Secondary index entries, the TTL index
// scans of the expiry engine and the query planner's scan bounds are built
// from these encodings.
//
// # Design
//
// The order is MongoDB's BSONElement::woCompare without collation. Values
// are ordered first by canonical type (canonicalizeBSONType):
//
//	MinKey < Undefined < null < numbers < strings, symbols < objects < arrays
//	< BinData < ObjectId < bool < Date < Timestamp < regex < DBPointer
//	< JavaScript < JavaScript with scope < MaxKey
//
// and within a type as MongoDB compares them:
//
//   - numbers by exact value whatever their BSON type (int32, int64,
//     double, decimal128): 1, 1.0, NumberLong(1) and NumberDecimal("1.00")
//     are equal and encode identically; int64 values beyond 2^53 and
//     decimals with 34 digits compare exactly against doubles; -0 equals 0;
//     NaN (double or decimal) is below every other number; ±Infinity of
//     either type are equal to each other;
//   - strings and symbols by their UTF-8 bytes;
//   - objects element by element: canonical type of the value, then field
//     name, then value; an object that is a prefix of another is smaller;
//   - arrays element by element, a prefix being smaller;
//   - BinData by length, then subtype, then bytes;
//   - ObjectId by bytes; false < true; Date by signed milliseconds;
//     Timestamp by unsigned (T, I); regex by pattern, then options;
//     DBPointer by namespace length, namespace, then ObjectId; JavaScript
//     by code; code with scope by code, then scope as an object.
//
// # Format
//
// Every encoding starts with a tag byte; tags increase with the canonical
// type order and leave gaps. No tag is 0x00 or 0xFF.
//
//	0x05 MinKey    0x0A Undefined   0x0F null
//	0x14–0x31 numbers (below)
//	0x3C string/symbol  0x46 object  0x50 array   0x5A BinData
//	0x64 ObjectId  0x6E false  0x6F true  0x78 Date  0x82 Timestamp
//	0x8C regex     0x96 DBPointer  0xA0 JavaScript  0xAA code with scope
//	0xF0 MaxKey
//
// Strings (and field names, regex patterns and options, JavaScript code)
// are their bytes with 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x01.
// The terminator sorts below any byte of a longer string, so "a" < "a\x00"
// < "ab".
//
// An ordered uint is a length byte n (0–8) followed by the n big-endian
// bytes of the value without leading zeros: longer means larger.
//
// Numbers are written in a canonical decimal form, in the manner of
// CockroachDB's and FoundationDB's decimal keys. A non-zero finite value is
// written as ±0.p1p2…pk × 100^E, where the pi are base-100 digits, p1 and pk
// are not zero, and the digits are the exact value: the full decimal
// expansion of a double (up to 767 significant digits: a double is m×2^e,
// a finite decimal fraction), the digits of an integer, the coefficient of
// a decimal128 without its trailing zeros. The tag carries the class:
//
//	0x14 NaN            0x15 -Infinity
//	0x16 negative, E > 10    0x17–0x21 negative, E = 10 … 0    0x22 negative, E < 0
//	0x23 zero
//	0x24 positive, E < 0     0x25–0x2F positive, E = 0 … 10    0x30 positive, E > 10
//	0x31 +Infinity
//
// For E > 10 an ordered uint of E follows the tag; for E < 0, an ordered
// uint of -E with its bytes inverted (a larger -E is a smaller magnitude).
// Every int64 has E in 1 … 10, so integers need no exponent byte. Then
// come the digits, one byte each: 2p+1 for every digit but the last, 2p
// for the last, so a shorter mantissa that is a prefix of a longer one
// sorts first and the end is recognisable. A negative number uses the tag
// mirrored around 0x23 (0x46 − tag) and inverts every byte after the tag,
// so a larger magnitude sorts lower. Examples: 1 is 26 02; 100 is 27 02;
// 12345 is 28 03 2F 5A; -1 is 20 FD; 0.5 is 25 64; 1e21 is 30 01 0B 14.
//
// A decimal128 whose coefficient is non-canonical (above 10^34 − 1) is
// zero, as IEEE 754-2008 prescribes. Doubles with long binary fractions
// give long keys (0.1 takes 29 bytes, the smallest subnormal about 380):
// that is the price of exact comparison with decimal128.
//
// Objects are tag 0x46, then per element the first tag of the value's
// canonical type (0x14 for any number, 0x6E for any bool), the escaped
// field name and the value's encoding, then 0x00. Arrays are tag 0x50,
// the values' encodings, then 0x00. 0x00 sorts below every tag, so a prefix
// object or array is smaller.
//
// BinData is tag, ordered uint of the length, subtype byte, bytes. The
// bytes are those BSON stores: for the deprecated subtype 2 they start
// with the inner length, which the driver adds when it marshals a
// bson.Binary and removes when it unmarshals one.
//
// ObjectId is the tag and its 12 bytes. Date is the tag and the 8
// big-endian bytes of the milliseconds with the sign bit flipped. Timestamp
// is the tag, T and I as 4 big-endian bytes each. Regex is two escaped
// strings. DBPointer is an ordered uint of the namespace length, the
// namespace bytes and the ObjectId. Code with scope is the escaped code
// followed by the scope encoded as an object.
//
// # Compound keys and descending parts
//
// Every encoding is prefix-free: no encoding is a proper prefix of
// another. Therefore, for two concatenations of encodings the first
// differing byte lies inside the first differing part, and a compound key
// orders like its parts compared in turn, whatever follows (more parts, the
// record id of an index entry). A descending part is the ascending
// encoding with every byte inverted: inversion keeps prefix-freedom and
// reverses the order.
//
// # Scan bounds
//
// With the first parts of a compound key fixed to the encoded prefix P and
// a part of direction d next, the ranges of keys for a condition on that
// part are:
//
//	= v          [P+enc(v), PrefixEnd(P+enc(v)))
//	>= v (asc)   [P+enc(v), …)            > v (asc)  [PrefixEnd(P+enc(v)), …)
//	<= v (asc)   [… , PrefixEnd(P+enc(v))) < v (asc)  [… , P+enc(v))
//	type T       [P+TypeLowerBound(T, d), P+TypeUpperBound(T, d))
//
// MongoDB's range queries stay within one canonical type ({$lt: date}
// never matches a number), so "…" is the type bound on that side. For a
// descending part, larger values have smaller keys: the roles of the two
// ends swap. The TTL sweep of an ascending index over "every Date at or
// before the cutoff" scans
// [TypeLowerBound(bson.TypeDateTime, false), PrefixEnd(enc(cutoff))).
//
// # Decoding
//
// DecodeValue inverts the encoding for covered reads and debugging. It
// accepts only canonical encodings: whatever it decodes re-encodes to the
// same bytes. Numeric types are not preserved (equal numbers must encode
// identically): a number decodes as int64 when it is an integer in the
// int64 range, as float64 when a double holds it exactly, else as
// bson.Decimal128. Symbols decode as strings and null as nil.
//
// # What callers decide
//
// The codec encodes values. Which values an index entry holds is the
// caller's rule: a missing field is indexed as null, an array field of a
// multikey index gives one entry per element (plus the empty array as
// undefined in MongoDB), and the record id is appended after the key.
//
// # Testing
//
// property_test.go checks, on random nested values of every type with
// numbers biased to cross-type ties and precision edges, that the byte
// order of encodings (ascending, descending, compound) has the sign of an
// oracle (oracle_test.go) written from MongoDB's rules with math/big, that
// decoding round-trips, and that raw BSON encodes like the Go value it
// marshals from. FuzzKeycodec fuzzes the decoder and the raw BSON path.
package keycodec
