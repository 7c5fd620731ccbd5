package catalog

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A capped collection keeps at most MaxSize bytes of documents (their BSON
// sizes, as collStats' size counts them) and, when MaxDocs is set, at most
// MaxDocs documents; an insert that passes a bound removes the oldest
// documents, in the same batch.
//
// Its documents stay keyed by _id like any collection's; what is added is
// the natural (insertion) order, kept under the collection's own id in the
// index keyspace (no index ever has a collection's id, as collections and
// indexes share one id counter):
//
//	PrefixIndex [collection id u64] 'o' [sequence u64 BE] -> keycodec(_id)
//	PrefixIndex [collection id u64] 'p' [keycodec(_id)]   -> sequence u64 BE
//
// The 'o' entries are the insertion order: a collection scan, {$natural: ±1}
// and tailable cursors walk them, and the oldest documents are a prefix of
// them, removed with one range deletion. The 'p' entries find a document's
// position when it is deleted by _id. Sequences grow by one per insert and
// are never reused; an update keeps the document's position.

// Capped is the bound of a capped collection.
type Capped struct {
	// MaxSize is the size bound in bytes (size, rounded up to 256).
	MaxSize int64
	// MaxDocs is the document bound; 0 means none.
	MaxDocs int64
}

// Capped reports the bound of a capped collection; ok is false for other
// collections.
func (m *CollMeta) Capped() (c Capped, ok bool) {
	v, found := FieldOf(m.Options, "capped")
	if !found || !Truthy(v) {
		return Capped{}, false
	}
	if s, found := FieldOf(m.Options, "size"); found {
		c.MaxSize, _ = ToInt64(s)
	}
	if x, found := FieldOf(m.Options, "max"); found {
		c.MaxDocs, _ = ToInt64(x)
	}
	return c, true
}

// Over reports whether a collection of docs documents and bytes bytes
// passes the bound.
func (c Capped) Over(docs, bytes int64) bool {
	return bytes > c.MaxSize || (c.MaxDocs > 0 && docs > c.MaxDocs)
}

// CappedMaxDocsCeiling is what a max of zero or less stands for: no bound
// on the number of documents (2^31-1, as MongoDB stores it).
const CappedMaxDocsCeiling = 0x7fffffff

// CappedMaxSizeCeiling is the largest size a capped collection may have
// (1 PB).
const CappedMaxSizeCeiling = 1 << 50

// RoundCappedSize rounds a capped size up to a multiple of 256 bytes, as
// MongoDB stores it.
func RoundCappedSize(n int64) int64 { return (n + 0xff) &^ 0xff }

// AdjustCappedMax maps a max of zero or less to CappedMaxDocsCeiling.
func AdjustCappedMax(n int64) int64 {
	if n <= 0 {
		return CappedMaxDocsCeiling
	}
	return n
}

// CappedOptions are the options that make a collection capped, as
// listCollections reports them first among its options: {capped: true,
// size, max?}; max is absent when maxDocs is 0.
func CappedOptions(c Capped) bson.D {
	out := bson.D{{Key: "capped", Value: true}, {Key: "size", Value: numberValue(c.MaxSize)}}
	if c.MaxDocs != 0 {
		out = append(out, bson.E{Key: "max", Value: numberValue(c.MaxDocs)})
	}
	return out
}

// WithCapped returns options with the capped fields replaced by c's (put
// first, where MongoDB lists them).
func WithCapped(options bson.D, c Capped) bson.D {
	out := CappedOptions(c)
	for _, e := range options {
		switch e.Key {
		case "capped", "size", "max":
		default:
			out = append(out, e)
		}
	}
	return out
}

// numberValue is a number as MongoDB's appendNumber stores it: int32 when
// it fits.
func numberValue(n int64) any {
	if n >= -1<<31 && n < 1<<31 {
		return int32(n)
	}
	return n
}

// Natural-order key tags, after the collection id.
const (
	naturalOrderTag    byte = 'o'
	naturalPositionTag byte = 'p'
)

// NaturalSpan returns the prefix of all natural-order keys of a capped
// collection (both kinds), for dropping them.
func NaturalSpan(collID uint64) []byte { return IndexPrefix(collID) }

// NaturalPrefix returns the prefix of a capped collection's natural-order
// entries.
func NaturalPrefix(collID uint64) []byte {
	return append(IndexPrefix(collID), naturalOrderTag)
}

// NaturalKey returns the key of the natural-order entry at seq.
func NaturalKey(collID, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(NaturalPrefix(collID), seq)
}

// NaturalSeq returns the sequence of a natural-order entry key; ok is false
// for a key of another shape.
func NaturalSeq(key []byte) (uint64, bool) {
	if len(key) != 18 || key[9] != naturalOrderTag {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[10:]), true
}

// PositionKey returns the key holding the sequence of the document with
// encoded _id idEnc.
func PositionKey(collID uint64, idEnc []byte) []byte {
	return append(append(IndexPrefix(collID), naturalPositionTag), idEnc...)
}
