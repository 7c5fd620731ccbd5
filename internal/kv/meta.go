package kv

import (
	"encoding/binary"
	"fmt"
)

// Type is the type of a Redis value.
type Type byte

// The value types. Values are part of the on-disk format: never renumber.
const (
	TypeNone   Type = 0
	TypeString Type = 1
	TypeList   Type = 2
	TypeHash   Type = 3
	TypeSet    Type = 4
	TypeZSet   Type = 5
	TypeStream Type = 6
)

// String returns the name TYPE replies with.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeHash:
		return "hash"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeStream:
		return "stream"
	default:
		return "none"
	}
}

// ParseType parses a type name as SCAN's TYPE option spells it; ok is false
// for an unknown name.
func ParseType(name string) (Type, bool) {
	for t := TypeString; t <= TypeStream; t++ {
		if equalFold(name, t.String()) {
			return t, true
		}
	}
	return TypeNone, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// metaHeaderLen is the size of the fixed part of a metadata record.
const metaHeaderLen = 1 + 8 + 8

// metaElemBytesFlag, set in a record's type byte, says that the 8 bytes
// after the fixed part hold the collection's element bytes (ElemBytes).
// A record without it (written before element bytes were kept) has them
// unknown.
const metaElemBytesFlag = 0x80

// Meta is the metadata record of one key: its type, the version its
// sub-keys live under, its absolute expiry time in Unix milliseconds (0 for
// none), and its payload. For a string the payload is the value itself; for
// a collection it starts with the element count (8 bytes, big-endian) and
// the collection type may append its own fields after it.
//
// ElemBytes is, for a collection, the byte size of its elements as
// elemBytes defines it, kept by every write that adds, removes or replaces
// elements; -1 means unknown (a record of the format before it was kept),
// and the next write of the key recounts it. A string's is always 0.
type Meta struct {
	Type      Type
	Version   uint64
	ExpireAt  int64
	ElemBytes int64
	Payload   []byte
}

// encode appends the record's encoding to dst: the type byte (with
// metaElemBytesFlag when ElemBytes is known), the version, the expiry, the
// element bytes when known, and the payload.
func (m *Meta) encode(dst []byte) []byte {
	known := m.Type != TypeString && m.ElemBytes >= 0
	if known {
		dst = append(dst, byte(m.Type)|metaElemBytesFlag)
	} else {
		dst = append(dst, byte(m.Type))
	}
	dst = binary.BigEndian.AppendUint64(dst, m.Version)
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireAt))
	if known {
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.ElemBytes))
	}
	return append(dst, m.Payload...)
}

// decodeMeta decodes a record; the payload aliases b.
func decodeMeta(b []byte) (Meta, error) {
	if len(b) < metaHeaderLen {
		return Meta{}, fmt.Errorf("%w: metadata of %d bytes", ErrCorrupt, len(b))
	}
	t, known := Type(b[0]&^metaElemBytesFlag), b[0]&metaElemBytesFlag != 0
	if t == TypeNone || t > TypeStream || (known && (t == TypeString || len(b) < metaHeaderLen+8)) {
		return Meta{}, fmt.Errorf("%w: metadata of %d bytes", ErrCorrupt, len(b))
	}
	m := Meta{
		Type:     t,
		Version:  binary.BigEndian.Uint64(b[1:9]),
		ExpireAt: int64(binary.BigEndian.Uint64(b[9:17])),
		Payload:  b[metaHeaderLen:],
	}
	switch {
	case known:
		m.ElemBytes = int64(binary.BigEndian.Uint64(b[metaHeaderLen:]))
		m.Payload = b[metaHeaderLen+8:]
	case t != TypeString:
		m.ElemBytes = -1
	}
	return m, nil
}

// Count returns the element count of a collection record.
func (m *Meta) Count() uint64 {
	if m.Type == TypeString || len(m.Payload) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(m.Payload[:8])
}

// SetCount stores the element count of a collection record, keeping any
// type-specific bytes that follow it.
func (m *Meta) SetCount(n uint64) {
	if len(m.Payload) < 8 {
		p := make([]byte, 8)
		copy(p, m.Payload)
		m.Payload = p
	} else {
		m.Payload = append([]byte(nil), m.Payload...)
	}
	binary.BigEndian.PutUint64(m.Payload[:8], n)
}

// expiredAt reports whether the key is logically expired at now (ms):
// Redis's rule is now > expireAt, so a key is still alive at exactly its
// expiry millisecond.
func (m *Meta) expiredAt(now int64) bool { return m.ExpireAt != 0 && now > m.ExpireAt }
