package storage_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/mayfly/mayfly/internal/storage"
)

// BenchmarkExpiryLayoutLookup measures what a point read costs under the
// expiry-ordered layout's lookup options (ARCHITECTURE.md, "Expiry-ordered
// layout (design)") against today's, on one store of layoutRecords records
// flushed to tables:
//
//   - direct: today's layout, the record under its _id (one Get);
//
//   - locator: the record under [bucket][_id] and a locator [_id] ->
//     bucket beside it (two Gets);
//
//   - memory: the record under [bucket][_id] and the bucket of each _id in
//     a Go map (a map read and one Get); it reports the map's bytes per
//     record.
//
//     go test -run '^$' -bench BenchmarkExpiryLayoutLookup -benchtime 100000x -count 3 ./internal/storage/
func BenchmarkExpiryLayoutLookup(b *testing.B) {
	const (
		layoutRecords = 100_000
		buckets       = 60 // one a minute of an hour's TTL
	)
	st, err := storage.Open(storage.Options{Dir: b.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ids := make([][]byte, layoutRecords)
	for i := range ids {
		ids[i] = fmt.Appendf(nil, "%024x", i) // an ObjectId's hex
	}
	id := func(i int) []byte { return ids[i] }
	direct := func(i int) []byte { return append([]byte{storage.PrefixDocument, 1}, id(i)...) }
	bucketOf := func(i int) uint64 { return uint64(i * buckets / layoutRecords) }
	bucketed := func(i int, bk uint64) []byte {
		return append(binary.BigEndian.AppendUint64([]byte{storage.PrefixDocument, 2}, bk), id(i)...)
	}
	locator := func(i int) []byte { return append([]byte{storage.PrefixDocument, 3}, id(i)...) }
	value := make([]byte, 100)
	for lo := 0; lo < layoutRecords; lo += 10_000 {
		bt := st.NewBatch()
		for i := lo; i < lo+10_000; i++ {
			bk := bucketOf(i)
			for _, kv := range [][2][]byte{
				{direct(i), value},
				{bucketed(i, bk), value},
				{locator(i), binary.BigEndian.AppendUint64(nil, bk)},
			} {
				if err := bt.Set(kv[0], kv[1]); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := bt.Commit(); err != nil {
			b.Fatal(err)
		}
		bt.Close()
	}
	if err := st.Flush(); err != nil {
		b.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	mem := make(map[string]uint32, layoutRecords)
	for i := range layoutRecords {
		mem[string(id(i))] = uint32(bucketOf(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	memPerRecord := float64(m1.HeapAlloc-m0.HeapAlloc) / layoutRecords
	get := func(b *testing.B, k []byte) []byte {
		v, err := st.Get(k)
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	order := rand.Perm(layoutRecords)
	b.Run("direct", func(b *testing.B) {
		for n := range b.N {
			get(b, direct(order[n%layoutRecords]))
		}
	})
	b.Run("locator", func(b *testing.B) {
		for n := range b.N {
			i := order[n%layoutRecords]
			bk := binary.BigEndian.Uint64(get(b, locator(i)))
			get(b, bucketed(i, bk))
		}
	})
	b.Run("memory", func(b *testing.B) {
		for n := range b.N {
			i := order[n%layoutRecords]
			get(b, bucketed(i, uint64(mem[string(id(i))])))
		}
		b.ReportMetric(memPerRecord, "map-B/record")
	})
	runtime.KeepAlive(mem)
}
