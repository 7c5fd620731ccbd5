package catalog

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// Storage keys of documents and index entries.
//
//	document: PrefixDocument [collection id: 8 bytes BE] [keycodec(_id)]
//	entry:    PrefixIndex    [index id: 8 bytes BE] [keycodec(part)...] [keycodec(_id)]
//
// Every keycodec encoding is prefix-free, so the entries of one key value
// are exactly the keys starting with [index id][parts], and the _id of an
// entry is what follows its parts.

// DocPrefix returns the prefix of a collection's documents.
func DocPrefix(collID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixDocument}, collID)
}

// DocKey returns the storage key of the document with encoded _id idEnc.
func DocKey(collID uint64, idEnc []byte) []byte {
	k := make([]byte, 0, 9+len(idEnc))
	k = append(k, storage.PrefixDocument)
	k = binary.BigEndian.AppendUint64(k, collID)
	return append(k, idEnc...)
}

// IndexPrefix returns the prefix of an index's entries.
func IndexPrefix(indexID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixIndex}, indexID)
}

// EntryKey returns the storage key of an index entry.
func EntryKey(indexID uint64, parts, idEnc []byte) []byte {
	k := make([]byte, 0, 9+len(parts)+len(idEnc))
	k = append(k, storage.PrefixIndex)
	k = binary.BigEndian.AppendUint64(k, indexID)
	k = append(k, parts...)
	return append(k, idEnc...)
}

// EncodeID returns the keycodec encoding of an _id value.
func EncodeID(id bson.RawValue) ([]byte, error) {
	return keycodec.AppendValue(nil, id, false)
}

// SplitEntry splits an index entry key (without its 9-byte prefix) into
// the decoded key values and the encoded _id.
func (ix *IndexMeta) SplitEntry(rest []byte) (values []any, idEnc []byte, err error) {
	desc := make([]bool, len(ix.Fields))
	for i, f := range ix.Fields {
		desc[i] = f.Desc
	}
	values, idEnc, err = keycodec.DecodeKey(rest, desc...)
	return values, idEnc, err
}

// IndexKey is one entry's key: the encoded parts and the values they
// encode (original BSON types, for duplicate key messages; the strings of
// an index with a collation are their collation keys).
type IndexKey struct {
	Enc    []byte
	Values []any
}

// IndexKeys computes the key of every entry doc has in ix (deduplicated,
// strings mapped to their collation keys when ix has a collation,
// sorted by encoding), and whether an array was met on a key path. It
// returns no keys when a sparse index has none of its fields in doc or a
// partial index's filter does not match doc. Indexing two arrays at once
// fails with CannotIndexParallelArrays (171).
func (ix *IndexMeta) IndexKeys(doc bson.D) (keys []IndexKey, multikey bool, err error) {
	if ix.Partial != nil && !ix.Partial.Matches(doc) {
		return nil, false, nil
	}
	perField := make([][]any, len(ix.Fields))
	arrayField := -1
	arrayPath := ""
	anyPresent := false
	for i, f := range ix.Fields {
		var kv KeyValues
		kv.Collect(doc, SplitPath(f.Path), true)
		if !kv.present {
			kv.Values = []any{nil}
		} else {
			anyPresent = true
		}
		if kv.array {
			multikey = true
			// Arrays under one path (a.b and a.c through array a) give the
			// cross product; arrays at two different paths cannot be
			// indexed together.
			if arrayField >= 0 && kv.arrayPath != arrayPath {
				return nil, false, mongoerr.Newf(mongoerr.CannotIndexParallelArrays,
					"cannot index parallel arrays [%s] [%s]", kv.arrayName, ix.arrayNameOf(doc, arrayField))
			}
			if arrayField < 0 {
				arrayField, arrayPath = i, kv.arrayPath
			}
		}
		perField[i] = kv.Values
	}
	if ix.Sparse && !anyPresent {
		return nil, multikey, nil
	}
	seen := map[string]bool{}
	values := make([]any, len(ix.Fields))
	var walk func(i int, key []byte) error
	walk = func(i int, key []byte) error {
		if i == len(ix.Fields) {
			if !seen[string(key)] {
				seen[string(key)] = true
				keys = append(keys, IndexKey{Enc: append([]byte(nil), key...), Values: append([]any(nil), values...)})
			}
			return nil
		}
		for _, v := range perField[i] {
			if ix.Collation != nil {
				v = ix.Collation.Value(v)
			}
			values[i] = v
			next, err := keycodec.AppendValue(key, v, ix.Fields[i].Desc)
			if err != nil {
				return mongoerr.Newf(mongoerr.CannotCreateIndex, "cannot encode index key: %v", err)
			}
			if err := walk(i+1, next); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0, nil); err != nil {
		return nil, false, err
	}
	sort.Slice(keys, func(a, b int) bool { return bytes.Compare(keys[a].Enc, keys[b].Enc) < 0 })
	return keys, multikey, nil
}

// arrayNameOf returns the name of the array met on field i's path in doc.
func (ix *IndexMeta) arrayNameOf(doc bson.D, i int) string {
	var kv KeyValues
	kv.Collect(doc, SplitPath(ix.Fields[i].Path), true)
	return kv.arrayName
}

// KeyValues gathers the values one key path produces in a document, the
// way MongoDB's key generator does: arrays met on the path are expanded
// (each element that is a document continues the path; an element missing
// the rest of the path gives null), a numeric component picks an array
// element, and a leaf array gives its elements (undefined when empty).
type KeyValues struct {
	Values    []any
	present   bool   // some value was found (not only missing fields)
	array     bool   // an array was expanded
	arrayName string // the field holding the first array met
	arrayPath string // the dotted path of that field
}

func (kv *KeyValues) Collect(cur any, parts []string, top bool) {
	kv.collectAt(cur, parts, top, "")
}

func (kv *KeyValues) collectAt(cur any, parts []string, top bool, base string) {
	for i := 0; i < len(parts); i++ {
		switch x := cur.(type) {
		case bson.D:
			v, ok := FieldOf(x, parts[i])
			if !ok {
				if !top {
					kv.Values = append(kv.Values, nil)
				}
				return
			}
			path := joinPath(base, parts[i])
			if arr, ok := v.(bson.A); ok {
				kv.expand(arr, parts[i], path, parts[i+1:])
				return
			}
			base = path
			cur = v
		default:
			// A scalar where the path needs a document: the path is
			// missing here.
			if !top {
				kv.Values = append(kv.Values, nil)
			}
			return
		}
	}
	kv.present = true
	kv.Values = append(kv.Values, cur)
}

// expand handles an array found in field name with rest of the path left.
func (kv *KeyValues) expand(arr bson.A, name, path string, rest []string) {
	if len(rest) > 0 {
		if n, ok := arrayIndex(rest[0]); ok {
			// A positional component: the element at that index, if any.
			if n < len(arr) {
				kv.collectAt(bson.D{{Key: rest[0], Value: arr[n]}}, rest, false, path)
			} else {
				kv.Values = append(kv.Values, nil)
			}
			return
		}
	}
	kv.present = true
	if !kv.array {
		kv.array = true
		kv.arrayName = name
		kv.arrayPath = path
	}
	if len(rest) == 0 {
		if len(arr) == 0 {
			kv.Values = append(kv.Values, bson.Undefined{})
			return
		}
		kv.Values = append(kv.Values, arr...)
		return
	}
	before := len(kv.Values)
	for _, e := range arr {
		if d, ok := e.(bson.D); ok {
			kv.collectAt(d, rest, false, path)
		}
	}
	if len(kv.Values) == before {
		kv.Values = append(kv.Values, nil)
	}
}

// arrayIndex parses a path component that addresses an array element.
func arrayIndex(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// FieldOf returns the value of the first field named name in d.
func FieldOf(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// SplitPath splits a dotted path.
func SplitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// ToKeyDoc pairs an index's field paths with key values: {a: 1, b: "x"}.
func ToKeyDoc(ix *IndexMeta, values []any) bson.D {
	kv := bson.D{}
	for i, f := range ix.Fields {
		kv = append(kv, bson.E{Key: f.Path, Value: values[i]})
	}
	return kv
}

// joinPath appends a component to a dotted path.
func joinPath(base, part string) string {
	if base == "" {
		return part
	}
	return base + "." + part
}
