package keycodec_test

import (
	"bytes"
	"flag"
	"math"
	"math/big"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/keycodec"
	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// TestMain raises rapid's default of 100 cases per property to 10,000 (1,000
// with -short), unless -rapid.checks or RAPID_CHECKS says otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if _, env := os.LookupEnv("RAPID_CHECKS"); !set && !env {
		checks := "10000"
		if testing.Short() {
			checks = "1000"
		}
		if err := flag.Set("rapid.checks", checks); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// sameValue returns a value that MongoDB considers equal to v, of a
// possibly different type: numbers in another numeric type, strings as
// symbols, null as nil, recursively inside documents and arrays.
func sameValue(t *rapid.T, v any) any {
	switch x := v.(type) {
	case int32, int64, int, float64, bson.Decimal128:
		n := toNumber(x)
		switch n.kind {
		case kindNaN:
			return rapid.SampledFrom([]any{math.NaN(), mustDecimal("NaN")}).Draw(t, "nan")
		case kindNegInf:
			return rapid.SampledFrom([]any{math.Inf(-1), mustDecimal("-Inf")}).Draw(t, "-inf")
		case kindPosInf:
			return rapid.SampledFrom([]any{math.Inf(1), mustDecimal("Inf")}).Draw(t, "+inf")
		}
		if !decimalFraction(n) {
			return v
		}
		return inAnyType(t, n.r)
	case string:
		return bson.Symbol(x)
	case bson.Symbol:
		return string(x)
	case nil:
		return bson.Null{}
	case bson.Null:
		return nil
	case bson.DateTime:
		if x > -1e15 && x < 1e15 {
			return time.UnixMilli(int64(x))
		}
	case time.Time:
		return bson.DateTime(x.UnixMilli())
	case bson.D:
		d := bson.D{}
		for _, e := range x {
			d = append(d, bson.E{Key: e.Key, Value: sameValue(t, e.Value)})
		}
		return d
	case bson.A:
		a := bson.A{}
		for _, e := range x {
			a = append(a, sameValue(t, e))
		}
		return a
	}
	return v
}

// decimalFraction reports whether the finite n has a terminating decimal
// expansion (its denominator has no prime factors but 2 and 5), which
// inAnyType needs.
func decimalFraction(n number) bool {
	d := new(big.Int).Set(n.r.Denom())
	q, m := new(big.Int), new(big.Int)
	for _, p := range []*big.Int{big.NewInt(2), big.NewInt(5)} {
		for {
			q.DivMod(d, p, m)
			if m.Sign() != 0 {
				break
			}
			d.Set(q)
		}
	}
	return d.IsInt64() && d.Int64() == 1
}

// genPair draws two values, the second often equal to or derived from the
// first so that ties are common.
func genPair(t *rapid.T) (a, b any) {
	a = genValue(2).Draw(t, "a")
	switch rapid.IntRange(0, 3).Draw(t, "relation") {
	case 0:
		b = sameValue(t, a)
	case 1:
		b = genNumberOrSame(t, a)
	default:
		b = genValue(2).Draw(t, "b")
	}
	return a, b
}

// genNumberOrSame gives a number next to a when a is a number, making
// cross-type near-ties frequent.
func genNumberOrSame(t *rapid.T, a any) any {
	if canonicalRank(a) == 10 {
		return genNumber().Draw(t, "b-number")
	}
	return sameValue(t, a)
}

// fataler is what the helpers need of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func mustEncode(t fataler, v any, desc bool) []byte {
	t.Helper()
	b, err := keycodec.AppendValue(nil, v, desc)
	if err != nil {
		t.Fatalf("AppendValue(%#v): %v", v, err)
	}
	return b
}

// checkRoundTrip decodes enc and checks that the result equals v by
// MongoDB's rules and re-encodes to enc.
func checkRoundTrip(t fataler, v any, enc []byte, desc bool) {
	t.Helper()
	got, rest, err := keycodec.DecodeValue(enc, desc)
	if err != nil {
		t.Fatalf("DecodeValue(%x, %v) of %#v: %v", enc, desc, v, err)
	}
	if len(rest) != 0 {
		t.Fatalf("DecodeValue(%x) of %#v left %x", enc, v, rest)
	}
	if c := compareValues(v, got); c != 0 {
		t.Fatalf("DecodeValue of %#v gave %#v, which compares %d", v, got, c)
	}
	if again := mustEncode(t, got, desc); !bytes.Equal(again, enc) {
		t.Fatalf("re-encoding %#v (decoded from %#v) gave %x, want %x", got, v, again, enc)
	}
}

func TestPropertyOrderAndRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genPair(t)
		want := sign(compareValues(a, b))
		for _, desc := range []bool{false, true} {
			ea, eb := mustEncode(t, a, desc), mustEncode(t, b, desc)
			got := bytes.Compare(ea, eb)
			if desc {
				got = -got
			}
			if got != want {
				t.Fatalf("desc=%v: a=%#v b=%#v: MongoDB order %d, encodings %x %x order %d", desc, a, b, want, ea, eb, got)
			}
			checkRoundTrip(t, a, ea, desc)
			checkRoundTrip(t, b, eb, desc)
		}
	})
}

func TestPropertyCompoundKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3).Draw(t, "parts")
		var pa, pb []keycodec.Part
		var desc []bool
		want := 0
		for range n {
			a, b := genPair(t)
			d := rapid.Bool().Draw(t, "desc")
			pa = append(pa, keycodec.Part{Value: a, Desc: d})
			pb = append(pb, keycodec.Part{Value: b, Desc: d})
			desc = append(desc, d)
			if c := sign(compareValues(a, b)); want == 0 && c != 0 {
				want = c
				if d {
					want = -c
				}
			}
		}
		ka, err := keycodec.Encode(pa...)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := keycodec.Encode(pb...)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("parts %#v vs %#v: want order %d, got %d (%x vs %x)", pa, pb, want, got, ka, kb)
		}
		// A record id after the key (as index entries have) must not
		// change the order of different keys.
		if want != 0 {
			ra := append(slices.Clone(ka), 0xFF, 0xFF)
			rb := append(slices.Clone(kb), 0x00)
			if got := bytes.Compare(ra, rb); got != want {
				t.Fatalf("suffix changed the order of %#v vs %#v", pa, pb)
			}
		}
		vals, rest, err := keycodec.DecodeKey(ka, desc...)
		if err != nil || len(rest) != 0 {
			t.Fatalf("DecodeKey(%x): %v, rest %x", ka, err, rest)
		}
		for i, v := range vals {
			if compareValues(v, pa[i].Value) != 0 {
				t.Fatalf("part %d decoded as %#v, want %#v", i, v, pa[i].Value)
			}
		}
	})
}

// TestPropertySortedEncodings sorts values by their encodings and checks
// that MongoDB's order agrees on every pair.
func TestPropertySortedEncodings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(genValue(1), 2, 8).Draw(t, "values")
		type enc struct {
			v any
			b []byte
		}
		encs := make([]enc, len(vals))
		for i, v := range vals {
			encs[i] = enc{v, mustEncode(t, v, false)}
		}
		slices.SortFunc(encs, func(x, y enc) int { return bytes.Compare(x.b, y.b) })
		for i := range encs {
			for j := i + 1; j < len(encs); j++ {
				if c := compareValues(encs[i].v, encs[j].v); c > 0 {
					t.Fatalf("%#v sorts before %#v but MongoDB orders it after", encs[i].v, encs[j].v)
				}
			}
		}
	})
}

// TestPropertyRawBSON checks that raw BSON encodes exactly like the Go
// value it marshals from and like the Go value the driver decodes it into.
func TestPropertyRawBSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(2).Draw(t, "v")
		raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
		if err != nil {
			return // not representable in BSON (NUL in a key or a regex)
		}
		want := mustEncode(t, v, false)
		if got := mustEncode(t, bson.Raw(raw).Lookup("v"), false); !bytes.Equal(got, want) {
			t.Fatalf("raw %#v encodes as %x, Go value as %x", v, got, want)
		}
		wantDoc := mustEncode(t, bson.D{{Key: "v", Value: v}}, true)
		if got := mustEncode(t, bson.Raw(raw), true); !bytes.Equal(got, wantDoc) {
			t.Fatalf("raw document %#v encodes as %x, bson.D as %x", v, got, wantDoc)
		}
		// The driver's decoder leaves the inner length of an empty subtype
		// 2 binary in Data; every other value comes back as it was.
		if !hasOldBinary(v) {
			var doc bson.D
			if err := bson.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			if got := mustEncode(t, doc[0].Value, false); !bytes.Equal(got, want) {
				t.Fatalf("driver-decoded %#v encodes as %x, original %#v as %x", doc[0].Value, got, v, want)
			}
		}
	})
}

// hasOldBinary reports whether v holds a binary of the old subtype 2.
func hasOldBinary(v any) bool {
	switch x := v.(type) {
	case bson.Binary:
		return x.Subtype == 2
	case bson.D:
		return slices.ContainsFunc(x, func(e bson.E) bool { return hasOldBinary(e.Value) })
	case bson.A:
		return slices.ContainsFunc(x, hasOldBinary)
	case bson.CodeWithScope:
		return hasOldBinary(x.Scope)
	}
	return false
}
