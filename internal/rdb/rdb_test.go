package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestChecksumIsRedisCRC64(t *testing.T) {
	if got := checksum([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

func readGolden(t testing.TB) map[string][]byte {
	t.Helper()
	f, err := os.Open("testdata/redis70_dumps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, h, _ := strings.Cut(line, " ")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = b
	}
	return out
}

// Redis's own payloads load to the values that made them, and dumping
// those values gives Redis's bytes back.
func TestGoldenPayloadsOfRedis70(t *testing.T) {
	golden := readGolden(t)
	items := func(n int) [][]byte {
		var out [][]byte
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Appendf(nil, "item%d", i))
		}
		return out
	}
	want := map[string]*Value{
		"s1":   {Kind: String, Str: []byte("hello")},
		"s2":   {Kind: String, Str: []byte("12345")},
		"s3":   {Kind: String, Str: []byte("-7")},
		"s4":   {Kind: String, Str: []byte("4294967296000")},
		"s5":   {Kind: String, Str: []byte(strings.Repeat("abc", 30))},
		"s6":   {Kind: String, Str: []byte("the quick brown fox jumps over the lazy dog the quick brown fox")},
		"s7":   {Kind: String, Str: []byte("0123456789abcdefghij0123456789ABCDEFGHIJ01234567890123456789")},
		"l1":   {Kind: List, Items: bs("a", "b", "c", "1", "200", "-5000", "70000")},
		"set1": {Kind: Set, Items: bs("-40000", "1", "2", "3")},
		"set2": {Kind: Set, Items: bs("5")},
		"set3": {Kind: Set, Items: bs("1", "9999999999")},
		"h1":   {Kind: Hash, Pairs: []Pair{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("hello")}}},
		"z1": {Kind: ZSet, Members: []Member{{[]byte("c"), -3}, {[]byte("d"), 0.1}, {[]byte("a"), 1},
			{[]byte("b"), 2.5}, {[]byte("e"), 1e20}}},
		"l2": {Kind: List, Items: items(300)},
	}
	for k, w := range want {
		p, ok := golden[k]
		if !ok {
			t.Fatalf("no golden payload %s", k)
		}
		got, err := Load(p)
		if err != nil {
			t.Fatalf("%s: Load: %v", k, err)
		}
		if !equalValues(got, w) {
			t.Errorf("%s: loaded %+v, want %+v", k, got, w)
		}
		if d := Dump(w, DefaultConfig); !bytes.Equal(d, p) {
			t.Errorf("%s: Dump\n got %x\nwant %x", k, d, p)
		}
	}
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// equalValues compares values, sets, hashes and sorted sets as unordered.
func equalValues(a, b *Value) bool {
	if a.Kind != b.Kind || !bytes.Equal(a.Str, b.Str) {
		return false
	}
	switch a.Kind {
	case List:
		return slices.EqualFunc(a.Items, b.Items, bytes.Equal)
	case Set:
		x, y := slices.Clone(a.Items), slices.Clone(b.Items)
		slices.SortFunc(x, bytes.Compare)
		slices.SortFunc(y, bytes.Compare)
		return slices.EqualFunc(x, y, bytes.Equal)
	case Hash:
		m := map[string]string{}
		for _, p := range a.Pairs {
			m[string(p.Field)] = string(p.Value)
		}
		if len(m) != len(b.Pairs) {
			return false
		}
		for _, p := range b.Pairs {
			if v, ok := m[string(p.Field)]; !ok || v != string(p.Value) {
				return false
			}
		}
		return true
	case ZSet:
		m := map[string]float64{}
		for _, e := range a.Members {
			m[string(e.Member)] = e.Score
		}
		if len(m) != len(b.Members) {
			return false
		}
		for _, e := range b.Members {
			if s, ok := m[string(e.Member)]; !ok || s != e.Score {
				return false
			}
		}
		return true
	case Stream:
		return equalStreams(a.Stream, b.Stream)
	}
	return true
}

func randBytes(r *rand.Rand) []byte {
	switch r.IntN(5) {
	case 0:
		return fmt.Appendf(nil, "%d", r.Int64N(1<<40)-1<<39)
	case 1:
		return fmt.Appendf(nil, "%d", r.IntN(300)-150)
	case 2:
		return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, r.IntN(200))
	default:
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
}

func randValue(r *rand.Rand) *Value {
	n := 1 + r.IntN(700)
	if r.IntN(2) == 0 {
		n = 1 + r.IntN(10)
	}
	v := &Value{Kind: Kind(1 + r.IntN(5))}
	seen := map[string]bool{}
	distinct := func() []byte {
		for {
			b := randBytes(r)
			if !seen[string(b)] {
				seen[string(b)] = true
				return b
			}
		}
	}
	switch v.Kind {
	case String:
		v.Str = randBytes(r)
		if r.IntN(4) == 0 {
			v.Str = bytes.Repeat(randBytes(r), 1+r.IntN(200))
		}
	case List:
		for range n {
			v.Items = append(v.Items, randBytes(r))
		}
	case Set:
		for range n {
			v.Items = append(v.Items, distinct())
		}
	case Hash:
		for range n {
			v.Pairs = append(v.Pairs, Pair{distinct(), randBytes(r)})
		}
	case ZSet:
		for range n {
			s := []float64{math.Inf(1), math.Inf(-1), 0, 1.5, -2, 1e300, r.NormFloat64() * 1e6, float64(r.IntN(1000))}
			v.Members = append(v.Members, Member{distinct(), s[r.IntN(len(s))]})
		}
	}
	return v
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	configs := []Config{DefaultConfig, {ListMaxListpackSize: 3, SetMaxIntsetEntries: 0, HashMaxListpackEntries: 1, HashMaxListpackValue: 1, ZSetMaxListpackEntries: 0, ZSetMaxListpackValue: 0}}
	for i := range 400 {
		v := randValue(r)
		c := configs[i%len(configs)]
		p := Dump(v, c)
		got, err := Load(p)
		if err != nil {
			t.Fatalf("value %d (%v): Load of own dump: %v", i, v.Kind, err)
		}
		if !equalValues(got, v) {
			t.Fatalf("value %d: round trip changed it", i)
		}
	}
}

func TestLZFRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		in := bytes.Repeat(randBytes(r), 1+r.IntN(50))
		if len(in) < 21 {
			continue
		}
		c := lzfCompress(in, len(in)-4)
		if c == nil {
			continue
		}
		out, err := lzfDecompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("LZF round trip of %q failed: %v", in, err)
		}
	}
}

func TestFooterErrors(t *testing.T) {
	p := Dump(&Value{Kind: String, Str: []byte("x")}, DefaultConfig)
	bad := slices.Clone(p)
	bad[len(bad)-1] ^= 1
	newer := slices.Clone(p)
	newer[len(newer)-10] = Version + 1
	for name, c := range map[string][]byte{"short": p[:9], "checksum": bad, "version": newer} {
		if _, err := Load(c); err != ErrVersion {
			t.Errorf("%s: %v, want ErrVersion", name, err)
		}
	}
}

// withFooter appends a valid version and checksum to an object.
func withFooter(obj []byte) []byte {
	w := writer{b: slices.Clone(obj)}
	w.b = append(w.b, Version, 0)
	var c [8]byte
	for i, s := 0, checksum(w.b); i < 8; i++ {
		c[i] = byte(s >> (8 * i))
	}
	return append(w.b, c[:]...)
}

func TestBadFormat(t *testing.T) {
	cases := map[string][]byte{
		"stream":           {typeStreamLP2, 0},
		"module":           {typeModule2, 0},
		"empty list":       {typeList, 0},
		"empty set":        {typeSet, 0},
		"duplicate member": {typeSet, 2, 1, 'a', 1, 'a'},
		"trailing bytes":   {typeString, 1, 'a', 'b'},
		"truncated":        {typeString, 5, 'a'},
		"nan score":        {typeZSet, 1, 1, 'a', 253},
		"odd hash":         append([]byte{typeHashListpack, 10}, newListpackOf("a").bytes()...),
		"bad listpack":     {typeHashListpack, 7, 7, 0, 0, 0, 0, 0, 0},
	}
	for name, obj := range cases {
		if _, err := Load(withFooter(obj)); err != ErrBadFormat {
			t.Errorf("%s: %v, want ErrBadFormat", name, err)
		}
	}
}

func newListpackOf(ss ...string) *listpackBuilder {
	lp := newListpack()
	for _, s := range ss {
		lp.add([]byte(s))
	}
	return lp
}

// Older encodings Redis 7.0 still loads: ziplists, zipmaps, text scores,
// quicklists of ziplists.
func TestOldEncodings(t *testing.T) {
	// a ziplist of "ab", 7, 300
	zl := []byte{0, 0, 0, 0, 0, 0, 0, 0, 3, 0,
		0, 0x02, 'a', 'b',
		4, 0xf8,
		2, 0xc0, 0x2c, 0x01,
		0xff}
	zl[0] = byte(len(zl))
	zl[4] = 16
	zipList := append([]byte{typeListZiplist, byte(len(zl))}, zl...)
	v, err := Load(withFooter(zipList))
	if err != nil || !equalValues(v, &Value{Kind: List, Items: bs("ab", "7", "300")}) {
		t.Fatalf("ziplist list: %+v %v", v, err)
	}
	ql := append([]byte{typeListQuicklist, 1, byte(len(zl))}, zl...)
	if v, err := Load(withFooter(ql)); err != nil || len(v.Items) != 3 {
		t.Fatalf("quicklist of ziplists: %+v %v", v, err)
	}
	// a zipmap {f: vv}
	zm := []byte{1, 1, 'f', 2, 0, 'v', 'v', 0xff}
	v, err = Load(withFooter(append([]byte{typeHashZipmap, byte(len(zm))}, zm...)))
	if err != nil || !equalValues(v, &Value{Kind: Hash, Pairs: []Pair{{[]byte("f"), []byte("vv")}}}) {
		t.Fatalf("zipmap: %+v %v", v, err)
	}
	// the first ZSET type, with text scores and an infinity
	v, err = Load(withFooter([]byte{typeZSet, 2, 1, 'a', 3, '1', '.', '5', 1, 'b', 254}))
	if err != nil || !equalValues(v, &Value{Kind: ZSet, Members: []Member{{[]byte("a"), 1.5}, {[]byte("b"), math.Inf(1)}}}) {
		t.Fatalf("zset: %+v %v", v, err)
	}
	// a listpack set, as Redis 7.2 writes small sets of strings
	v, err = Load(withFooter(append([]byte{typeSetListpack, byte(len(newListpackOf("x", "9").bytes()))}, newListpackOf("x", "9").bytes()...)))
	if err != nil || !equalValues(v, &Value{Kind: Set, Items: bs("x", "9")}) {
		t.Fatalf("listpack set: %+v %v", v, err)
	}
}

func TestEncoding(t *testing.T) {
	c := DefaultConfig
	cases := []struct {
		v    Value
		want string
	}{
		{Value{Kind: String, Str: []byte("123")}, "int"},
		{Value{Kind: String, Str: []byte("0123")}, "embstr"},
		{Value{Kind: String, Str: bytes.Repeat([]byte("a"), 44)}, "embstr"},
		{Value{Kind: String, Str: bytes.Repeat([]byte("a"), 45)}, "raw"},
		{Value{Kind: List, Items: bs("a")}, "quicklist"},
		{Value{Kind: Set, Items: bs("1", "2")}, "intset"},
		{Value{Kind: Set, Items: bs("1", "a")}, "hashtable"},
		{Value{Kind: Hash, Pairs: []Pair{{[]byte("f"), []byte("v")}}}, "listpack"},
		{Value{Kind: Hash, Pairs: []Pair{{[]byte("f"), bytes.Repeat([]byte("v"), 65)}}}, "hashtable"},
		{Value{Kind: ZSet, Members: []Member{{[]byte("m"), 1}}}, "listpack"},
		{Value{Kind: ZSet, Members: []Member{{bytes.Repeat([]byte("m"), 65), 1}}}, "skiplist"},
	}
	for _, tc := range cases {
		if got := Encoding(&tc.v, c); got != tc.want {
			t.Errorf("Encoding(%v %q...) = %s, want %s", tc.v.Kind, tc.v.Str, got, tc.want)
		}
	}
}

// FuzzLoad checks that no payload panics Load, and that whatever loads
// dumps and loads back to the same value.
func FuzzLoad(f *testing.F) {
	for _, p := range []*Value{
		{Kind: String, Str: []byte("hello hello hello hello hello")},
		{Kind: List, Items: bs("a", "1", "-70000")},
		{Kind: Set, Items: bs("1", "2")},
		{Kind: Set, Items: bs("a", "b")},
		{Kind: Hash, Pairs: []Pair{{[]byte("f"), []byte("v")}}},
		{Kind: ZSet, Members: []Member{{[]byte("m"), 1.5}}},
	} {
		f.Add(Dump(p, DefaultConfig))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 4 {
		f.Add(Dump(&Value{Kind: Stream, Stream: randStream(r)}, DefaultConfig))
	}
	golden := readGolden(f)
	for _, k := range []string{"st1", "st3", "st4", "st5", "stv5"} {
		f.Add(golden[k])
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		// Also try the payload's object under a valid footer, so the
		// fuzzer reaches the decoders past the checksum.
		for _, p := range [][]byte{payload, withFooter(payload)} {
			v, err := Load(p)
			if err != nil {
				continue
			}
			again, err := Load(Dump(v, DefaultConfig))
			if err != nil || !equalValues(again, v) {
				t.Fatalf("a loaded value does not round-trip: %v", err)
			}
		}
	})
}

// A FUNCTION payload in the format of Redis 7.0's release candidates
// (opcode 246: name, engine, description, code) loads as today's code; a
// truncated library is Redis's "Failed loading library payload".
func TestLoadFunctionsPreRelease(t *testing.T) {
	body := "\nredis.register_function('old', function() return 'rc' end)"
	var w writer
	w.byte(opFunctionPre)
	w.string([]byte("oldlib"))
	w.string([]byte("LUA"))
	w.length(1) // has a description
	w.string([]byte("desc"))
	w.string([]byte(body))
	w.b = binary.LittleEndian.AppendUint16(w.b, Version)
	p := binary.LittleEndian.AppendUint64(w.b, checksum(w.b))
	codes, err := LoadFunctions(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "#!LUA name=oldlib\n" + body; len(codes) != 1 || string(codes[0]) != want {
		t.Fatalf("codes = %q, want %q", codes, want)
	}
	if got, err := LoadFunctions(DumpFunctions(codes)); err != nil || string(got[0]) != string(codes[0]) {
		t.Fatalf("round trip = %q, %v", got, err)
	}
	truncated := append([]byte{opFunction2, 0x40}, Version, 0)
	truncated = binary.LittleEndian.AppendUint64(truncated, checksum(truncated))
	if _, err := LoadFunctions(truncated); err == nil || err.Error() != "Failed loading library payload" {
		t.Fatalf("truncated payload: %v", err)
	}
	if _, err := LoadFunctions(Dump(&Value{Kind: String, Str: []byte("x")}, DefaultConfig)); err != ErrNotFunction {
		t.Fatalf("a string's payload: %v", err)
	}
}
