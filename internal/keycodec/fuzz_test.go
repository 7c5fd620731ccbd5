package keycodec_test

import (
	"bytes"
	"testing"

	"github.com/mayfly/mayfly/internal/keycodec"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzKeycodec feeds arbitrary bytes to the decoder, both as keys and as
// raw BSON. Properties: nothing panics; whatever decodes re-encodes to the
// bytes it was decoded from; two decoded keys compare like MongoDB compares
// their values; raw BSON that encodes gives a key that decodes back.
func FuzzKeycodec(f *testing.F) {
	for i, v := range ascending {
		e := mustEncode(f, v, false)
		next := mustEncode(f, ascending[(i+1)%len(ascending)], false)
		f.Add(e, next)
		f.Add(mustEncode(f, v, true), e)
		if raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}}); err == nil {
			f.Add(raw, append(e, 0x00))
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		type decoded struct {
			v   any
			enc []byte
		}
		decode := func(src []byte, desc bool) *decoded {
			v, rest, err := keycodec.DecodeValue(src, desc)
			if err != nil {
				return nil
			}
			consumed := src[:len(src)-len(rest)]
			again := mustEncode(t, v, desc)
			if !bytes.Equal(again, consumed) {
				t.Fatalf("desc=%v: %x decoded as %#v, which encodes as %x", desc, consumed, v, again)
			}
			return &decoded{v, consumed}
		}
		for _, desc := range []bool{false, true} {
			da, db := decode(a, desc), decode(b, desc)
			if da == nil || db == nil {
				continue
			}
			want := sign(compareValues(da.v, db.v))
			if desc {
				want = -want
			}
			if got := bytes.Compare(da.enc, db.enc); got != want {
				t.Fatalf("desc=%v: %#v vs %#v: MongoDB order %d, keys %x %x order %d", desc, da.v, db.v, want, da.enc, db.enc, got)
			}
		}
		for _, raw := range []any{bson.Raw(a), bson.RawArray(a), bson.RawValue{Type: bson.Type(b0(b)), Value: a}} {
			enc, err := keycodec.AppendValue(nil, raw, false)
			if err != nil {
				continue
			}
			v, rest, err := keycodec.DecodeValue(enc, false)
			if err != nil || len(rest) != 0 {
				t.Fatalf("raw %x encoded as %x, which does not decode: %v", a, enc, err)
			}
			if again := mustEncode(t, v, false); !bytes.Equal(again, enc) {
				t.Fatalf("raw %x encoded as %x, decoded as %#v, re-encoded as %x", a, enc, v, again)
			}
		}
	})
}

func b0(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
