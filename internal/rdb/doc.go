// Package rdb is Redis's serialized value format, as DUMP emits and
// RESTORE reads it: one RDB object (its type byte and payload) followed by
// a 2-byte RDB version and the CRC64 of everything before it.
//
// # Rules
//
//   - Dump writes the encodings Redis 7.0 itself writes for the same value
//     under the same configuration (Config): strings as integers when they
//     are short decimal integers, LZF-compressed when longer than 20 bytes
//     and compressible (rdbcompression), lists as a quicklist of listpack
//     nodes, sets as an intset or a plain set, hashes and sorted sets as a
//     listpack while they are small enough or else plainly, streams as
//     STREAM_LISTPACKS_2 with one listpack per node of the value. The RDB
//     version written is 10, Redis 7.0's.
//   - Load accepts every encoding Redis 7.0 can send for strings, lists,
//     sets, sorted sets and hashes (raw, integer and LZF strings; plain
//     lists, ziplists, quicklists of ziplists, quicklists of listpacks and
//     plain nodes; plain sets, intsets and listpacks; plain sorted sets with
//     text or binary scores, ziplists and listpacks; plain hashes, zipmaps,
//     ziplists and listpacks; streams of Redis 7.0 and of Redis 5 and 6)
//     and checks everything it reads: a payload of any other type
//     (modules), with trailing bytes, truncated, with duplicate members or
//     fields, empty (but for a stream), a stream inconsistent in any way
//     (entries out of order or above its last ID, a length or first ID its
//     entries do not give, a pending entry no single consumer owns), or
//     otherwise malformed is ErrBadFormat, never a panic. A version above 10 or a wrong checksum is
//     ErrVersion.
//   - Encoding answers OBJECT ENCODING from the value and the Config by the
//     same rules that choose Dump's encodings, as if the value had been
//     built up in its current shape (Redis never converts back to a
//     compact encoding when a value shrinks; mayfly does not remember).
//
// The package is pure: values in, bytes out, no storage and no clock.
//
// # Testing
//
// Round trips of generated values through Dump and Load, golden payloads
// produced by Redis 7.0 for each encoding, and FuzzLoad, which checks that
// no input panics and that whatever loads dumps and loads back the same.
package rdb
