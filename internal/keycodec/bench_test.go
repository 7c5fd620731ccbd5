package keycodec_test

import (
	"testing"

	"github.com/mayfly/mayfly/internal/keycodec"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkAppendKey encodes a typical index entry key: a compound
// (tenant string, status int32, expiresAt Date descending) followed by the
// ObjectId of the document.
func BenchmarkAppendKey(b *testing.B) {
	parts := []keycodec.Part{
		{Value: "tenant-0042"},
		{Value: int32(3)},
		{Value: bson.DateTime(1_700_000_123_456), Desc: true},
		{Value: bson.ObjectID{0x65, 0x5f, 0x1a, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34}},
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = keycodec.AppendKey(buf[:0], parts...)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "key-bytes")
}

// BenchmarkAppendValue encodes single values of the common types.
func BenchmarkAppendValue(b *testing.B) {
	cases := []struct {
		name string
		v    any
	}{
		{"int64", int64(1234567)},
		{"double-integral", 42.0},
		{"double-fraction", 3.14159},
		{"decimal", mustDecimal("12345.6789")},
		{"string", "user@example.com"},
		{"date", bson.DateTime(1_700_000_123_456)},
		{"objectid", bson.ObjectID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{"document", bson.D{{Key: "city", Value: "Ankara"}, {Key: "zip", Value: int32(6100)}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				buf, err = keycodec.AppendValue(buf[:0], c.v, false)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "key-bytes")
		})
	}
}

// BenchmarkDecodeValue decodes the Date part of a key.
func BenchmarkDecodeValue(b *testing.B) {
	enc, err := keycodec.AppendValue(nil, bson.DateTime(1_700_000_123_456), true)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := keycodec.DecodeValue(enc, true); err != nil {
			b.Fatal(err)
		}
	}
}
