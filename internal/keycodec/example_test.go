package keycodec_test

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/mayfly/mayfly/internal/keycodec"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Keys of an index {status: 1, expiresAt: -1}: ordered by status, then by
// expiresAt from the latest to the earliest. Numbers of different types
// with the same value are the same key.
func ExampleEncode() {
	rows := []bson.D{
		{{Key: "status", Value: "open"}, {Key: "expiresAt", Value: bson.DateTime(1000)}},
		{{Key: "status", Value: int64(2)}, {Key: "expiresAt", Value: bson.DateTime(5000)}},
		{{Key: "status", Value: "open"}, {Key: "expiresAt", Value: bson.DateTime(3000)}},
		{{Key: "status", Value: 2.0}, {Key: "expiresAt", Value: bson.DateTime(9000)}},
	}
	type entry struct {
		key []byte
		row bson.D
	}
	var entries []entry
	for _, r := range rows {
		k, err := keycodec.Encode(
			keycodec.Part{Value: r[0].Value},
			keycodec.Part{Value: r[1].Value, Desc: true},
		)
		if err != nil {
			panic(err)
		}
		entries = append(entries, entry{k, r})
	}
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	for _, e := range entries {
		fmt.Println(e.row[0].Value, e.row[1].Value)
	}
	// Output:
	// 2 9000
	// 2 5000
	// open 3000
	// open 1000
}

// The TTL sweep's range: every Date at or before the cutoff, and nothing
// of another type.
func ExampleTypeLowerBound() {
	cutoff := bson.DateTime(2000)
	lo, err := keycodec.TypeLowerBound(bson.TypeDateTime, false)
	if err != nil {
		panic(err)
	}
	at, err := keycodec.AppendValue(nil, cutoff, false)
	if err != nil {
		panic(err)
	}
	hi := keycodec.PrefixEnd(at)
	for _, v := range []any{bson.DateTime(-1), bson.DateTime(2000), bson.DateTime(2001), int64(5), true, bson.Timestamp{T: 1}} {
		k, err := keycodec.AppendValue(nil, v, false)
		if err != nil {
			panic(err)
		}
		fmt.Println(v, bytes.Compare(lo, k) <= 0 && bytes.Compare(k, hi) < 0)
	}
	// Output:
	// -1 true
	// 2000 true
	// 2001 false
	// 5 false
	// true false
	// {1 0} false
}
