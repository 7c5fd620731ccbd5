package hll

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
)

// The expected values below were obtained from redis-server 7.0.15 with
// hll-sparse-max-bytes 3000: for each case the elements were added with
// PFADD in batches of 1000 to a fresh key, then PFCOUNT gave the count and
// GET the value (with the cardinality cached), whose length and SHA-256
// are recorded.
var redisCases = []struct {
	name  string
	elems [][]byte
	count uint64
	len   int
	sha   string
	dense bool
}{
	{"abc", strs("a", "b", "c"), 3, 27, "95703068f7d9a2ecf9ea7f9ad29997661d55259b144c621aa9fb20e9ca793b5b", false},
	{"empty-string", strs(""), 1, 21, "d2f5c2ededd2e11723f80d901ce83f1a2cfd82b88ec5cd71d62cc8a5243d2e4a", false},
	{"none", nil, 0, 18, "d9596e4bda3ed9045a2ee58fb6f30fed43bfa8a196669693083a4f265198cf66", false},
	{"n1", seq("", 1), 1, 21, "89b5cf543655cd319f1774b36f75402c990989bef1dd5bef3f9b36736b7faf43", false},
	{"n10", seq("", 10), 10, 47, "898c84a63b6247e1c31f77dc0e33be2e0a9a225693659d17ea9cec3666e4d0ca", false},
	{"n100", seq("", 100), 100, 287, "82a9c3541b766318ed5c431c65ec0fa7a3162cb1d043d33de80872ed20128fc7", false},
	{"n500", seq("", 500), 503, 1061, "6a0c7beae5a0dffd52e65f165ee20ffd4d5a13cfa534971f4d374ee8a68d1ca4", false},
	{"n1000", seq("", 1000), 1001, 1922, "719dd6d68459551c0ffe9f675882cee133adeaf55feed3f7ef33f0f0df867a33", false},
	{"n2000", seq("", 2000), 2006, 12304, "c77e08b36c315227c1875463581e7fbaf6dfbc2a618ad298e15239b61c6b5ad1", true},
	{"n3000", seq("", 3000), 3005, 12304, "2b39fbd51782464f4e45d49410413879e327ad82bff9f085096addb6e10d7311", true},
	{"n10000", seq("", 10000), 9988, 12304, "38f87d7a6919c0645dd245a9ca47aa3f10174da1f76aa5df4eae6df8028870ee", true},
	{"n100000", seq("", 100000), 99562, 12304, "c65d9bc48e944a8319c21a54d0311a7f95cf81d44c35395337b09a6382d84c37", true},
	{"foo20000", seq("foo-", 20000), 20073, 12304, "7b2712bd5cc706f0e7e0da9395e07948828155b9349062165c5e337ed565947b", true},
}

func strs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

// seq is prefix1 .. prefixN.
func seq(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(prefix + strconv.Itoa(i+1))
	}
	return out
}

// build is a fresh value after PFADD of elems in batches of 1000.
func build(t *testing.T, elems [][]byte) []byte {
	t.Helper()
	v := New()
	InvalidateCache(v) // PFADD creating the key counts as a change
	for i := 0; i < len(elems); i += 1000 {
		var err error
		if v, _, err = Add(v, elems[i:min(i+1000, len(elems))], 3000); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// Ensure that the same additions give Redis's count and Redis's exact bytes,
// sparse and dense.
func TestMatchesRedis(t *testing.T) {
	for _, c := range redisCases {
		t.Run(c.name, func(t *testing.T) {
			v := build(t, c.elems)
			if err := Check(v); err != nil {
				t.Fatal(err)
			}
			n, nv, err := Count(v)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.count {
				t.Errorf("count %d, Redis %d", n, c.count)
			}
			if nv == nil {
				t.Fatal("the cache was valid after PFADD")
			}
			if len(nv) != c.len || digest(nv) != c.sha {
				t.Errorf("value of %d bytes %s, Redis %d bytes %s", len(nv), digest(nv), c.len, c.sha)
			}
			if IsDense(nv) != c.dense {
				t.Errorf("dense %v, Redis %v", IsDense(nv), c.dense)
			}
			// The cached count is answered without a rewrite.
			if n2, again, err := Count(nv); err != nil || n2 != n || again != nil {
				t.Errorf("cached count %d %v %v", n2, again != nil, err)
			}
			// Dense and sparse forms of the same registers count the same.
			d, err := ToDense(v)
			if err != nil {
				t.Fatal(err)
			}
			InvalidateCache(d)
			if nd, _, _ := Count(d); nd != c.count {
				t.Errorf("dense count %d, want %d", nd, c.count)
			}
		})
	}
}

// Ensure that PFMERGE's result and PFCOUNT of several keys match Redis
// (values obtained from redis-server 7.0.15 as above: a = "a".."z", b =
// "1".."500", c = "foo-1".."foo-20000").
func TestMergeMatchesRedis(t *testing.T) {
	var az [][]byte
	for ch := 'a'; ch <= 'z'; ch++ {
		az = append(az, []byte(string(ch)))
	}
	a, b, c := build(t, az), build(t, seq("", 500)), build(t, seq("foo-", 20000))
	var m Max
	for _, v := range [][]byte{a, b, c} {
		if err := m.Merge(v); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Count(); got != 20562 {
		t.Errorf("PFCOUNT a b c = %d, Redis 20562", got)
	}
	merge := func(srcs ...[]byte) []byte {
		var m Max
		dense := false
		for _, s := range srcs {
			dense = dense || IsDense(s)
			if err := m.Merge(s); err != nil {
				t.Fatal(err)
			}
		}
		d, err := Store(New(), &m, dense, 3000)
		if err != nil {
			t.Fatal(err)
		}
		_, d, err = Count(d)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := merge(a, b)
	if n, _, _ := Count(d); n != 526 || len(d) != 1103 || digest(d) != "9f33b19a89933ed63327cc6b5a41a2b1cabe14b8d65a90c9b990ddbf4fa489b8" {
		t.Errorf("PFMERGE d a b: count %d, %d bytes %s", n, len(d), digest(d))
	}
	d = merge(a, c)
	if n, _, _ := Count(d); n != 20101 || !IsDense(d) || digest(d) != "aec83fb24b0236e72d62f755f5506046c7aea069e7f23446557e84a5c4564738" {
		t.Errorf("PFMERGE d a c: count %d, dense %v, %s", n, IsDense(d), digest(d))
	}
	x := build(t, strs("x"))
	if s, ok := Decode(x); !ok || s != "Z:16374 v:2,1 z:9" {
		t.Errorf("decode x = %q", s)
	}
	if s, _ := Decode(a); s[:36] != "Z:1094 v:4,1 Z:551 v:1,1 Z:138 v:3,1" {
		t.Errorf("decode a = %q", s)
	}
}

// Ensure that what is not a HyperLogLog is refused and a corrupt sparse
// value is detected, never read out of bounds.
func TestInvalidAndCorrupt(t *testing.T) {
	good := build(t, strs("a", "b", "c"))
	for _, bad := range [][]byte{nil, []byte("HYLL"), []byte("0123" + string(good[4:])),
		append([]byte("HYLL\x02"), good[5:]...), append([]byte("HYLL\x00"), good[5:]...)} {
		if err := Check(bad); err != ErrInvalid {
			t.Errorf("Check(%q) = %v", bad, err)
		}
	}
	tail := append(append([]byte(nil), good...), "hello"...)
	if err := Check(tail); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Count(tail); err != ErrCorrupt {
		t.Errorf("count of a value with extra opcodes: %v", err)
	}
	var m Max
	if err := m.Merge(tail); err != ErrCorrupt {
		t.Errorf("merge: %v", err)
	}
	if _, err := ToDense(tail); err != ErrCorrupt {
		t.Errorf("to dense: %v", err)
	}
	// Every one-byte corruption of a sparse value is read without a panic.
	for pos := headerSize; pos < len(good); pos++ {
		for b := 0; b < 256; b++ {
			v := append([]byte(nil), good...)
			v[pos] = byte(b)
			InvalidateCache(v)
			Count(v)
			Add(v, strs("q", "r", "s", "t"), 3000)
			var into Max
			into.Merge(v)
			RegisterValues(v)
			Decode(v)
		}
		trunc := good[:pos]
		Count(trunc)
		Add(trunc, strs("q"), 3000)
	}
}

// Ensure that PFSELFTEST passes.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("ten million additions")
	}
	if err := SelfTest(1, 3000); err != nil {
		t.Fatal(err)
	}
}

// Ensure that MurmurHash64A gives the register Redis's PFDEBUG DECODE
// shows for "x" (register 16374, value 2) for every tail length.
func TestPatLen(t *testing.T) {
	if i, c := patLen([]byte("x")); i != 16374 || c != 2 {
		t.Errorf("x: register %d value %d", i, c)
	}
	for n := 0; n < 20; n++ { // all tail lengths, no panic
		b := []byte("0123456789abcdefghij")[:n]
		if murmurHash64A(b, hashSeed) == murmurHash64A(append([]byte{1}, b...)[1:n+1], hashSeed+1) {
			t.Errorf("length %d: the seed changes nothing", n)
		}
	}
}
