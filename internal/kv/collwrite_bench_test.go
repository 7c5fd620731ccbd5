package kv_test

import (
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkCollectionWrite measures the write path of the four collection
// types: HSET, LPUSH, SADD and ZADD of one 100-byte element into one of
// 1,000 keys, sixteen commands per Tx (a pipeline of 16), with the
// metadata cache, reporting the process's CPU time per op beside the wall
// time. Collections keep growing, so HSET and SADD mostly add new
// elements.
func BenchmarkCollectionWrite(b *testing.B) {
	keys := benchKeys()[:1000]
	elem := func(i int) []byte {
		e := make([]byte, 100)
		copy(e, strconv.Itoa(i))
		return e
	}
	ops := []struct {
		name string
		op   func(tx *kv.Tx, key []byte, i int) error
	}{
		{"HSET", func(tx *kv.Tx, key []byte, i int) error {
			_, err := tx.HSet(key, [][]byte{[]byte(strconv.Itoa(i)), elem(i)})
			return err
		}},
		{"LPUSH", func(tx *kv.Tx, key []byte, i int) error {
			_, err := tx.Push(key, kv.ListLeft, false, [][]byte{elem(i)})
			return err
		}},
		{"SADD", func(tx *kv.Tx, key []byte, i int) error {
			_, err := tx.SAdd(key, [][]byte{elem(i)})
			return err
		}},
		{"ZADD", func(tx *kv.Tx, key []byte, i int) error {
			_, err := tx.ZAdd(key, kv.ZAddOptions{}, []float64{float64(i)}, [][]byte{elem(i)})
			return err
		}},
	}
	for _, o := range ops {
		b.Run(o.name, func(b *testing.B) {
			s := benchStore(b, true)
			b.ReportAllocs()
			defer reportCPU(b)()
			for i := 0; b.Loop(); {
				tx := s.Begin()
				for range 16 {
					if err := o.op(tx, keys[i%len(keys)], i); err != nil {
						b.Fatal(err)
					}
					i++
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
