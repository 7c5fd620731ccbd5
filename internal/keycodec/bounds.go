package keycodec

import "go.mongodb.org/mongo-driver/v2/bson"

// PrefixEnd returns the smallest byte string that is greater than every
// byte string starting with prefix, or nil when there is none (prefix is
// empty or all 0xFF), meaning the scan has no upper bound.
//
// Because encodings are prefix-free, PrefixEnd(enc(v)) is also at most the
// encoding of any value sorting after v. It turns an inclusive bound on a
// value into a key bound: keys with v as their first part (followed by
// more parts or a record id) are exactly those in
// [enc(v), PrefixEnd(enc(v))).
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}

// TypeLowerBound returns the inclusive lower key bound of the values whose
// canonical type is that of t, for a part with direction desc: every key
// whose part has that type, whatever follows it, is >= the bound, and every
// key whose part has a canonical type that sorts before it (after it, when
// desc) is < the bound. The four numeric types share one bracket, as do
// string and symbol.
//
// For example, all Dates at or before a cutoff in an ascending index are
// the keys in [TypeLowerBound(bson.TypeDateTime, false),
// PrefixEnd(enc(cutoff))).
//
// An unknown type gives an error wrapping ErrUnsupportedType.
func TypeLowerBound(t bson.Type, desc bool) ([]byte, error) {
	first, last, err := typeRange(t)
	if err != nil {
		return nil, err
	}
	if desc {
		return []byte{^last}, nil
	}
	return []byte{first}, nil
}

// TypeUpperBound returns the exclusive upper key bound of the values whose
// canonical type is that of t, for a part with direction desc: every key
// whose part has that type is < the bound, and every key whose part has a
// canonical type that sorts after it (before it, when desc) is >= the
// bound. The bound is a single byte, never empty: tags avoid 0x00 and 0xFF.
//
// An unknown type gives an error wrapping ErrUnsupportedType.
func TypeUpperBound(t bson.Type, desc bool) ([]byte, error) {
	first, last, err := typeRange(t)
	if err != nil {
		return nil, err
	}
	if desc {
		return []byte{^first + 1}, nil
	}
	return []byte{last + 1}, nil
}
