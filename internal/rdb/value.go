package rdb

// Kind is the type of a value.
type Kind uint8

// The kinds of value the format carries.
const (
	String Kind = iota + 1
	List
	Set
	ZSet
	Hash
	Stream
)

// Value is one key's value, whole.
type Value struct {
	Kind Kind
	// Str is a String's bytes.
	Str []byte
	// Items are a List's elements from head to tail, or a Set's members
	// (distinct, in any order).
	Items [][]byte
	// Pairs are a Hash's fields and values (distinct fields, in any order).
	Pairs []Pair
	// Members are a ZSet's elements (distinct members, in any order; Dump
	// writes them by ascending score, then member).
	Members []Member
	// Stream is a Stream's whole content.
	Stream *StreamValue
}

// Pair is one field of a hash.
type Pair struct{ Field, Value []byte }

// Member is one element of a sorted set.
type Member struct {
	Member []byte
	Score  float64
}

// Config holds the parameters that choose encodings, as Redis's CONFIG
// names them.
type Config struct {
	ListMaxListpackSize    int64 // list-max-listpack-size: entries per node (> 0) or a node size class (-1 to -5)
	SetMaxIntsetEntries    int64 // set-max-intset-entries
	HashMaxListpackEntries int64 // hash-max-listpack-entries
	HashMaxListpackValue   int64 // hash-max-listpack-value
	ZSetMaxListpackEntries int64 // zset-max-listpack-entries
	ZSetMaxListpackValue   int64 // zset-max-listpack-value
	Compression            bool  // rdbcompression: LZF for strings longer than 20 bytes
}

// DefaultConfig is Redis 7.0's default configuration.
var DefaultConfig = Config{
	ListMaxListpackSize:    -2,
	SetMaxIntsetEntries:    512,
	HashMaxListpackEntries: 512,
	HashMaxListpackValue:   64,
	ZSetMaxListpackEntries: 128,
	ZSetMaxListpackValue:   64,
	Compression:            true,
}

// embstrMax is the longest string Redis stores embedded in its object.
const embstrMax = 44

// Encoding is OBJECT ENCODING's answer for v under c: for strings "int"
// (a decimal integer as Redis parses one), "embstr" (up to 44 bytes) or
// "raw"; "quicklist" for lists; "intset" (all members integers, no more
// than set-max-intset-entries) or "hashtable" for sets; "listpack" (no
// more than the -entries parameter's elements, none longer than the
// -value one) or "hashtable" for hashes and "skiplist" for sorted sets.
func Encoding(v *Value, c Config) string {
	switch v.Kind {
	case String:
		if _, ok := parseInt(v.Str); ok {
			return "int"
		}
		if len(v.Str) <= embstrMax {
			return "embstr"
		}
		return "raw"
	case List:
		return "quicklist"
	case Set:
		if setIsIntset(v.Items, c) {
			return "intset"
		}
		return "hashtable"
	case Hash:
		if hashIsListpack(v.Pairs, c) {
			return "listpack"
		}
		return "hashtable"
	case ZSet:
		if zsetIsListpack(v.Members, c) {
			return "listpack"
		}
		return "skiplist"
	case Stream:
		return "stream"
	}
	return ""
}

// EncodingLimit is how many elements a set, hash or sorted set may have
// and still be in a compact encoding under c: Encoding needs no more than
// this many of a collection's elements to decide, and a larger one is in
// its big encoding.
func EncodingLimit(k Kind, c Config) int64 {
	switch k {
	case Set:
		return c.SetMaxIntsetEntries
	case Hash:
		return c.HashMaxListpackEntries
	case ZSet:
		return c.ZSetMaxListpackEntries
	}
	return 0
}

// BigEncoding is the encoding of a collection of kind k too large for a
// compact one.
func BigEncoding(k Kind) string {
	switch k {
	case List:
		return "quicklist"
	case ZSet:
		return "skiplist"
	}
	return "hashtable"
}

func setIsIntset(items [][]byte, c Config) bool {
	if int64(len(items)) > c.SetMaxIntsetEntries {
		return false
	}
	for _, it := range items {
		if _, ok := parseInt(it); !ok {
			return false
		}
	}
	return true
}

func hashIsListpack(pairs []Pair, c Config) bool {
	if int64(len(pairs)) > c.HashMaxListpackEntries {
		return false
	}
	for _, p := range pairs {
		if int64(len(p.Field)) > c.HashMaxListpackValue || int64(len(p.Value)) > c.HashMaxListpackValue {
			return false
		}
	}
	return true
}

func zsetIsListpack(ms []Member, c Config) bool {
	if int64(len(ms)) > c.ZSetMaxListpackEntries {
		return false
	}
	for _, m := range ms {
		if int64(len(m.Member)) > c.ZSetMaxListpackValue {
			return false
		}
	}
	return true
}
