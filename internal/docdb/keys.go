package docdb

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

// docPrefix returns the prefix of a collection's documents.
func docPrefix(collID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixDocument}, collID)
}

// docKey returns the storage key of the document with encoded _id idEnc.
func docKey(collID uint64, idEnc []byte) []byte {
	k := make([]byte, 0, 9+len(idEnc))
	k = append(k, storage.PrefixDocument)
	k = binary.BigEndian.AppendUint64(k, collID)
	return append(k, idEnc...)
}

// indexPrefix returns the prefix of an index's entries.
func indexPrefix(indexID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixIndex}, indexID)
}

// entryKey returns the storage key of an index entry.
func entryKey(indexID uint64, parts, idEnc []byte) []byte {
	k := make([]byte, 0, 9+len(parts)+len(idEnc))
	k = append(k, storage.PrefixIndex)
	k = binary.BigEndian.AppendUint64(k, indexID)
	k = append(k, parts...)
	return append(k, idEnc...)
}

// encodeID returns the keycodec encoding of an _id value.
func encodeID(id bson.RawValue) ([]byte, error) {
	return keycodec.AppendValue(nil, id, false)
}

// splitEntry splits an index entry key (without its 9-byte prefix) into
// the decoded key values and the encoded _id.
func (ix *indexMeta) splitEntry(rest []byte) (values []any, idEnc []byte, err error) {
	desc := make([]bool, len(ix.fields))
	for i, f := range ix.fields {
		desc[i] = f.desc
	}
	values, idEnc, err = keycodec.DecodeKey(rest, desc...)
	return values, idEnc, err
}

// indexKey is one entry's key: the encoded parts and the values they
// encode (original BSON types, for duplicate key messages).
type indexKey struct {
	enc    []byte
	values []any
}

// indexKeys computes the key of every entry doc has in ix (deduplicated,
// sorted by encoding), and whether an array was met on a key path. It
// returns no keys when a sparse index has none of its fields in doc or a
// partial index's filter does not match doc. Indexing two arrays at once
// fails with CannotIndexParallelArrays (171).
func (ix *indexMeta) indexKeys(doc bson.D) (keys []indexKey, multikey bool, err error) {
	if ix.partial != nil && !ix.partial.matches(doc) {
		return nil, false, nil
	}
	perField := make([][]any, len(ix.fields))
	arrayField := -1
	arrayPath := ""
	anyPresent := false
	for i, f := range ix.fields {
		var kv keyValues
		kv.collect(doc, splitPath(f.path), true)
		if !kv.present {
			kv.values = []any{nil}
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
		perField[i] = kv.values
	}
	if ix.sparse && !anyPresent {
		return nil, multikey, nil
	}
	seen := map[string]bool{}
	values := make([]any, len(ix.fields))
	var walk func(i int, key []byte) error
	walk = func(i int, key []byte) error {
		if i == len(ix.fields) {
			if !seen[string(key)] {
				seen[string(key)] = true
				keys = append(keys, indexKey{enc: append([]byte(nil), key...), values: append([]any(nil), values...)})
			}
			return nil
		}
		for _, v := range perField[i] {
			values[i] = v
			next, err := keycodec.AppendValue(key, v, ix.fields[i].desc)
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
	sort.Slice(keys, func(a, b int) bool { return bytes.Compare(keys[a].enc, keys[b].enc) < 0 })
	return keys, multikey, nil
}

// arrayNameOf returns the name of the array met on field i's path in doc.
func (ix *indexMeta) arrayNameOf(doc bson.D, i int) string {
	var kv keyValues
	kv.collect(doc, splitPath(ix.fields[i].path), true)
	return kv.arrayName
}

// keyValues gathers the values one key path produces in a document, the
// way MongoDB's key generator does: arrays met on the path are expanded
// (each element that is a document continues the path; an element missing
// the rest of the path gives null), a numeric component picks an array
// element, and a leaf array gives its elements (undefined when empty).
type keyValues struct {
	values    []any
	present   bool   // some value was found (not only missing fields)
	array     bool   // an array was expanded
	arrayName string // the field holding the first array met
	arrayPath string // the dotted path of that field
}

func (kv *keyValues) collect(cur any, parts []string, top bool) {
	kv.collectAt(cur, parts, top, "")
}

func (kv *keyValues) collectAt(cur any, parts []string, top bool, base string) {
	for i := 0; i < len(parts); i++ {
		switch x := cur.(type) {
		case bson.D:
			v, ok := fieldOf(x, parts[i])
			if !ok {
				if !top {
					kv.values = append(kv.values, nil)
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
				kv.values = append(kv.values, nil)
			}
			return
		}
	}
	kv.present = true
	kv.values = append(kv.values, cur)
}

// expand handles an array found in field name with rest of the path left.
func (kv *keyValues) expand(arr bson.A, name, path string, rest []string) {
	if len(rest) > 0 {
		if n, ok := arrayIndex(rest[0]); ok {
			// A positional component: the element at that index, if any.
			if n < len(arr) {
				kv.collectAt(bson.D{{Key: rest[0], Value: arr[n]}}, rest, false, path)
			} else {
				kv.values = append(kv.values, nil)
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
			kv.values = append(kv.values, bson.Undefined{})
			return
		}
		kv.values = append(kv.values, arr...)
		return
	}
	before := len(kv.values)
	for _, e := range arr {
		if d, ok := e.(bson.D); ok {
			kv.collectAt(d, rest, false, path)
		}
	}
	if len(kv.values) == before {
		kv.values = append(kv.values, nil)
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

// fieldOf returns the value of the first field named name in d.
func fieldOf(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// splitPath splits a dotted path.
func splitPath(p string) []string {
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

// toKeyDoc pairs an index's field paths with key values: {a: 1, b: "x"}.
func toKeyDoc(ix *indexMeta, values []any) bson.D {
	kv := bson.D{}
	for i, f := range ix.fields {
		kv = append(kv, bson.E{Key: f.path, Value: values[i]})
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
