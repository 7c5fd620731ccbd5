package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/storage"
)

// The metamorphic test: random documents, random indexes and random
// filters and sorts. Every plan must return what a collection scan returns
// (the same documents; in the same sort-key order when sorted), whichever
// index is hinted and whatever the planner picks on its own.

var metaValues = []any{
	int32(1), int64(2), 2.0, 2.5, int32(-3), "x", "y", "", nil, true, false,
	bson.A{int32(1), int32(3)}, bson.A{}, bson.A{"x", int32(2)}, d("k", int32(1)), d(),
	bson.DateTime(1000), bson.MinKey{}, bson.MaxKey{},
}

var metaFields = []string{"a", "b", "c.d"}

func genValue(t *rapid.T, label string) any {
	return rapid.SampledFrom(metaValues).Draw(t, label)
}

func genDoc(t *rapid.T, id int) bson.D {
	doc := d("_id", int32(id))
	for _, f := range []string{"a", "b"} {
		if rapid.Bool().Draw(t, "has "+f) {
			doc = append(doc, bson.E{Key: f, Value: genValue(t, f)})
		}
	}
	switch rapid.IntRange(0, 3).Draw(t, "c") {
	case 1:
		doc = append(doc, bson.E{Key: "c", Value: d("d", genValue(t, "c.d"))})
	case 2:
		doc = append(doc, bson.E{Key: "c", Value: bson.A{d("d", genValue(t, "c.d1")), d("d", genValue(t, "c.d2"))}})
	case 3:
		doc = append(doc, bson.E{Key: "c", Value: genValue(t, "c scalar")})
	}
	return doc
}

func genPredicate(t *rapid.T) bson.D {
	f := rapid.SampledFrom(metaFields).Draw(t, "field")
	v := genValue(t, "operand")
	switch rapid.IntRange(0, 5).Draw(t, "op") {
	case 0:
		return d(f, v)
	case 1:
		return d(f, d("$in", bson.A{v, genValue(t, "operand2")}))
	case 2:
		return d(f, d("$gt", v))
	case 3:
		return d(f, d("$lte", v))
	case 4:
		return d(f, d("$gte", v, "$lt", genValue(t, "upper")))
	default:
		return d(f, d("$eq", v))
	}
}

func genFilter(t *rapid.T) bson.D {
	n := rapid.IntRange(0, 2).Draw(t, "clauses")
	var clauses bson.A
	for i := 0; i < n; i++ {
		clauses = append(clauses, genPredicate(t))
	}
	switch len(clauses) {
	case 0:
		return nil
	case 1:
		return clauses[0].(bson.D)
	}
	return d("$and", clauses)
}

func genSort(t *rapid.T) bson.D {
	var s bson.D
	for _, f := range metaFields {
		if rapid.IntRange(0, 3).Draw(t, "sort "+f) == 0 {
			dir := int32(1)
			if rapid.Bool().Draw(t, "desc "+f) {
				dir = -1
			}
			s = append(s, bson.E{Key: f, Value: dir})
		}
	}
	return s
}

func genIndexKey(t *rapid.T) bson.D {
	n := rapid.IntRange(1, 2).Draw(t, "key fields")
	fields := rapid.Permutation(metaFields).Draw(t, "key order")[:n]
	var key bson.D
	for _, f := range fields {
		dir := int32(1)
		if rapid.Bool().Draw(t, "key desc "+f) {
			dir = -1
		}
		key = append(key, bson.E{Key: f, Value: dir})
	}
	return key
}

// runFind returns the documents of a find, decoded.
func runFind(ctx context.Context, e *Engine, req FindRequest) ([]bson.D, error) {
	cur, err := e.Find(ctx, "db", "m", req)
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	var out []bson.D
	for {
		r, err := cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var doc bson.D
		if err := bson.Unmarshal(r, &doc); err != nil {
			return nil, err
		}
		out = append(out, doc)
	}
}

func idSet(docs []bson.D) string {
	var ids []string
	for _, doc := range docs {
		ids = append(ids, fmt.Sprint(doc[0].Value))
	}
	sort.Strings(ids)
	return fmt.Sprint(ids)
}

func sortKeys(s *query.Sort, docs []bson.D) string {
	var keys []string
	for _, doc := range docs {
		keys = append(keys, fmtDoc(bson.D{{Key: "k", Value: bson.A(s.KeyOf(doc))}}))
	}
	return fmt.Sprint(keys)
}

// sameOrder reports whether two result lists have equal sort keys, position
// by position (equal keys may differ in type: 2 and 2.0).
func sameOrder(s *query.Sort, a, b []bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if s.CompareKeys(s.KeyOf(a[i]), s.KeyOf(b[i])) != 0 {
			return false
		}
	}
	return true
}

func TestMetamorphicPlansAgreeWithCollectionScan(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		e, err := Open(Options{Store: st})
		if err != nil {
			rt.Fatal(err)
		}
		defer e.Close()
		var raws []bson.Raw
		n := rapid.IntRange(0, 25).Draw(rt, "docs")
		for i := 0; i < n; i++ {
			b, _ := bson.Marshal(genDoc(rt, i))
			raws = append(raws, b)
		}
		if n > 0 {
			if _, err := e.Insert(ctx, "db", "m", InsertRequest{Documents: raws}); err != nil {
				rt.Fatal(err)
			}
		}
		var names []string
		for i := rapid.IntRange(1, 3).Draw(rt, "indexes"); i > 0; i-- {
			name := fmt.Sprintf("ix%d", i)
			_, err := e.CreateIndexes(ctx, "db", "m", indexSpecs(d("key", genIndexKey(rt), "name", name)))
			if err == nil {
				names = append(names, name)
			}
		}
		// Writes after the builds exercise index maintenance too.
		for i := 0; i < 5; i++ {
			b, _ := bson.Marshal(genDoc(rt, 100+i))
			e.Insert(ctx, "db", "m", InsertRequest{Documents: []bson.Raw{b}})
		}
		if err := e.Check(ctx); err != nil {
			rt.Fatal(err)
		}
		for q := 0; q < 5; q++ {
			filter := genFilter(rt)
			srt := genSort(rt)
			base, err := runFind(ctx, e, FindRequest{Filter: filter, Sort: srt, Hint: d("$natural", int32(1))})
			if err != nil {
				rt.Fatalf("collection scan %s: %v", fmtDoc(filter), err)
			}
			var parsed *query.Sort
			if len(srt) > 0 {
				parsed, _ = query.ParseSort(srt)
			}
			hints := []any{nil}
			for _, nm := range names {
				hints = append(hints, nm)
			}
			for _, h := range hints {
				got, err := runFind(ctx, e, FindRequest{Filter: filter, Sort: srt, Hint: h})
				if err != nil {
					rt.Fatalf("hint %v filter %s: %v", h, fmtDoc(filter), err)
				}
				if idSet(got) != idSet(base) {
					rt.Fatalf("hint %v filter %s sort %s:\n got %s\nwant %s", h, fmtDoc(filter), fmtDoc(srt), idSet(got), idSet(base))
				}
				if parsed != nil && !sameOrder(parsed, got, base) {
					rt.Fatalf("hint %v filter %s sort %s: order\n got %s\nwant %s", h, fmtDoc(filter), fmtDoc(srt), sortKeys(parsed, got), sortKeys(parsed, base))
				}
			}
		}
	})
}
