package aggregate_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/update"
)

// The pipelines of a Turkish MongoDB data-modelling article: referencing with
// $lookup, hierarchies with $graphLookup, computed values materialised with
// $merge, the bucket and subset patterns, archiving and polymorphic data.
// Each runs over in-memory collections through the Resolver/Writer fakes.

func mustDocs(t *testing.T, js string) []bson.D {
	t.Helper()
	var w bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+js+`}`), false, &w); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	var out []bson.D
	for _, e := range w[0].Value.(bson.A) {
		out = append(out, e.(bson.D))
	}
	return out
}

func mustArr(t *testing.T, js string) bson.A {
	t.Helper()
	var w bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+js+`}`), false, &w); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	return w[0].Value.(bson.A)
}

func canon(t *testing.T, docs []bson.D) string {
	t.Helper()
	a := bson.A{}
	for _, d := range docs {
		a = append(a, d)
	}
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: a}}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run parses and runs pipeline over coll of the store in database "shop".
func run(t *testing.T, st *memStore, coll, pipeline string) []bson.D {
	t.Helper()
	p, err := aggregate.Parse(mustArr(t, pipeline), aggregate.Options{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	out, err := p.Collect(t.Context(), st.all("shop", coll), aggregate.Env{
		DB: "shop", Resolver: st, Writer: st,
		Vars: aggregate.NewVars(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

func expect(t *testing.T, got []bson.D, want string) {
	t.Helper()
	w := mustDocs(t, want)
	if canon(t, got) != canon(t, w) {
		t.Fatalf("got  %s\nwant %s", canon(t, got), canon(t, w))
	}
}

func seedStore(t *testing.T) *memStore {
	st := newMemStore()
	st.put("shop", "yayinevleri", mustDocs(t, `[{"_id": "deniz-yayin", "ad": "Deniz Yayınları", "sehir": "İzmir"}, {"_id": "ada", "ad": "Ada", "sehir": "Bursa"}]`)...)
	st.put("shop", "kitaplar", mustDocs(t, `[
		{"_id": 1001, "baslik": "Kıyı", "sayfa": 210, "yayineviId": "deniz-yayin"},
		{"_id": 1002, "baslik": "Liman", "sayfa": 184, "yayineviId": "deniz-yayin"},
		{"_id": 1003, "baslik": "Dağ", "sayfa": 420, "yayineviId": "ada"}]`)...)
	st.put("shop", "kullanicilar", mustDocs(t, `[{"_id": "u42", "ad": "Deniz",
		"iletisim": {"eposta": "deniz@example.com", "telefon": "0555 000 00 00"},
		"adresler": [{"tur": "ev", "sehir": "Bursa"}, {"tur": "is", "sehir": "İstanbul"}]},
		{"_id": "u7", "ad": "Ece", "adresler": [{"tur": "ev", "sehir": "Ankara"}]}]`)...)
	st.put("shop", "siparisler", mustDocs(t, `[
		{"_id": 5001, "musteriId": "u42", "tarih": {"$date": "2026-11-05T00:00:00Z"},
		 "kalemler": [{"urunId": 7, "ad": "Kablosuz Fare", "birimFiyat": 450, "adet": 2},
		              {"urunId": 9, "ad": "USB Bellek", "birimFiyat": 180, "adet": 1}], "toplam": 1080},
		{"_id": 5002, "musteriId": "u42", "tarih": {"$date": "2025-01-10T00:00:00Z"},
		 "kalemler": [{"urunId": 9, "ad": "USB Bellek", "birimFiyat": 150, "adet": 3}], "toplam": 450},
		{"_id": 5003, "musteriId": "u7", "tarih": {"$date": "2026-10-01T00:00:00Z"},
		 "kalemler": [{"urunId": 7, "ad": "Kablosuz Fare", "birimFiyat": 450, "adet": 1}], "toplam": 450}]`)...)
	return st
}

func TestSeedOneToManyLookup(t *testing.T) {
	st := seedStore(t)
	// A publisher's books: the reference lives on the "many" side.
	got := run(t, st, "yayinevleri", `[
		{"$match": {"_id": "deniz-yayin"}},
		{"$lookup": {"from": "kitaplar", "localField": "_id", "foreignField": "yayineviId", "as": "kitaplar"}},
		{"$project": {"ad": 1, "kitaplar.baslik": 1, "kitapSayisi": {"$size": "$kitaplar"}}}]`)
	expect(t, got, `[{"_id": "deniz-yayin", "ad": "Deniz Yayınları", "kitaplar": [{"baslik": "Kıyı"}, {"baslik": "Liman"}], "kitapSayisi": 2}]`)

	// The other direction: each book gets its publisher, unwound to one document.
	got = run(t, st, "kitaplar", `[
		{"$lookup": {"from": "yayinevleri", "localField": "yayineviId", "foreignField": "_id", "as": "yayinevi"}},
		{"$unwind": "$yayinevi"},
		{"$match": {"yayinevi.sehir": "İzmir"}},
		{"$sort": {"sayfa": -1}},
		{"$project": {"_id": 0, "baslik": 1, "yayinevi": "$yayinevi.ad"}}]`)
	expect(t, got, `[{"baslik": "Kıyı", "yayinevi": "Deniz Yayınları"}, {"baslik": "Liman", "yayinevi": "Deniz Yayınları"}]`)
}

func TestSeedEmbeddedQuery(t *testing.T) {
	st := seedStore(t)
	// Querying embedded documents with dot notation ("adresler.sehir": "Bursa").
	got := run(t, st, "kullanicilar", `[{"$match": {"adresler.sehir": "Bursa"}}, {"$project": {"ad": 1, "eposta": "$iletisim.eposta"}}]`)
	expect(t, got, `[{"_id": "u42", "ad": "Deniz", "eposta": "deniz@example.com"}]`)
}

func TestSeedLookupPipelineWithLet(t *testing.T) {
	st := seedStore(t)
	// Orders of each customer since a date, with let variables and $expr.
	got := run(t, st, "kullanicilar", `[
		{"$lookup": {"from": "siparisler", "let": {"mid": "$_id"}, "pipeline": [
			{"$match": {"$expr": {"$and": [{"$eq": ["$musteriId", "$$mid"]}, {"$gte": ["$tarih", {"$date": "2026-01-01T00:00:00Z"}]}]}}},
			{"$project": {"_id": 1, "toplam": 1}}], "as": "sonSiparisler"}},
		{"$project": {"ad": 1, "sonSiparisler": 1, "harcama": {"$sum": "$sonSiparisler.toplam"}}}]`)
	expect(t, got, `[{"_id": "u42", "ad": "Deniz", "sonSiparisler": [{"_id": 5001, "toplam": 1080}], "harcama": 1080},
		{"_id": "u7", "ad": "Ece", "sonSiparisler": [{"_id": 5003, "toplam": 450}], "harcama": 450}]`)

	// The combined form: equality on fields plus a sub-pipeline.
	got = run(t, st, "kullanicilar", `[
		{"$lookup": {"from": "siparisler", "localField": "_id", "foreignField": "musteriId", "let": {"esik": 500},
			"pipeline": [{"$match": {"$expr": {"$gt": ["$toplam", "$$esik"]}}}], "as": "buyuk"}},
		{"$project": {"n": {"$size": "$buyuk"}}}]`)
	expect(t, got, `[{"_id": "u42", "n": 1}, {"_id": "u7", "n": 0}]`)
}

func TestSeedOrderSubsetAndComputedTotals(t *testing.T) {
	st := seedStore(t)
	// The order embeds a subset of product data; its total is a computed value.
	got := run(t, st, "siparisler", `[
		{"$match": {"_id": 5001}},
		{"$project": {"toplam": 1, "hesaplanan": {"$sum": {"$map": {"input": "$kalemler", "as": "k",
			"in": {"$multiply": ["$$k.birimFiyat", "$$k.adet"]}}}}}},
		{"$addFields": {"tutarli": {"$eq": ["$toplam", "$hesaplanan"]}}}]`)
	expect(t, got, `[{"_id": 5001, "toplam": 1080, "hesaplanan": 1080, "tutarli": true}]`)

	// Revenue per product across orders.
	got = run(t, st, "siparisler", `[
		{"$unwind": "$kalemler"},
		{"$group": {"_id": "$kalemler.urunId", "adet": {"$sum": "$kalemler.adet"},
			"ciro": {"$sum": {"$multiply": ["$kalemler.birimFiyat", "$kalemler.adet"]}},
			"ad": {"$first": "$kalemler.ad"}}},
		{"$sort": {"_id": 1}}]`)
	expect(t, got, `[{"_id": 7, "adet": 3, "ciro": 1350, "ad": "Kablosuz Fare"}, {"_id": 9, "adet": 4, "ciro": 630, "ad": "USB Bellek"}]`)
}

func TestSeedComputedValuesWithMerge(t *testing.T) {
	st := seedStore(t)
	pipeline := `[
		{"$group": {"_id": "$musteriId", "siparisSayisi": {"$sum": 1}, "toplamHarcama": {"$sum": "$toplam"}, "sonSiparis": {"$max": "$tarih"}}},
		{"$merge": {"into": "musteriOzet", "on": "_id", "whenMatched": "replace", "whenNotMatched": "insert"}}]`
	if out := run(t, st, "siparisler", pipeline); len(out) != 0 {
		t.Fatalf("$merge must output nothing, got %d documents", len(out))
	}
	expect(t, st.all("shop", "musteriOzet"), `[
		{"_id": "u42", "siparisSayisi": 2, "toplamHarcama": 1530, "sonSiparis": {"$date": "2026-11-05T00:00:00Z"}},
		{"_id": "u7", "siparisSayisi": 1, "toplamHarcama": 450, "sonSiparis": {"$date": "2026-10-01T00:00:00Z"}}]`)

	// A new order, then the background job refreshes the materialized view.
	st.put("shop", "siparisler", mustDocs(t, `[{"_id": 5004, "musteriId": "u7", "tarih": {"$date": "2026-11-20T00:00:00Z"}, "kalemler": [], "toplam": 100}]`)...)
	run(t, st, "siparisler", pipeline)
	expect(t, st.all("shop", "musteriOzet"), `[
		{"_id": "u42", "siparisSayisi": 2, "toplamHarcama": 1530, "sonSiparis": {"$date": "2026-11-05T00:00:00Z"}},
		{"_id": "u7", "siparisSayisi": 2, "toplamHarcama": 550, "sonSiparis": {"$date": "2026-11-20T00:00:00Z"}}]`)

	// whenMatched as a pipeline that accumulates with $$new.
	run(t, st, "siparisler", `[
		{"$match": {"_id": 5004}},
		{"$project": {"_id": "$musteriId", "ek": "$toplam"}},
		{"$merge": {"into": "musteriOzet", "whenMatched": [{"$set": {"toplamHarcama": {"$add": ["$toplamHarcama", "$$new.ek"]}}}]}}]`)
	expect(t, st.all("shop", "musteriOzet")[1:], `[{"_id": "u7", "siparisSayisi": 2, "toplamHarcama": 650, "sonSiparis": {"$date": "2026-11-20T00:00:00Z"}}]`)

	// whenMatched merge keeps fields the new document lacks.
	run(t, st, "kullanicilar", `[{"$match": {"_id": "u7"}}, {"$project": {"ad": 1}}, {"$merge": {"into": "musteriOzet", "whenMatched": "merge"}}]`)
	expect(t, st.all("shop", "musteriOzet")[1:], `[{"_id": "u7", "siparisSayisi": 2, "toplamHarcama": 650, "sonSiparis": {"$date": "2026-11-20T00:00:00Z"}, "ad": "Ece"}]`)
}

func TestSeedGraphLookupHierarchy(t *testing.T) {
	st := newMemStore()
	// Large hierarchical data is modelled by reference; $graphLookup walks it.
	st.put("shop", "kategoriler", mustDocs(t, `[
		{"_id": "elektronik", "ust": null},
		{"_id": "bilgisayar", "ust": "elektronik"},
		{"_id": "aksesuar", "ust": "bilgisayar"},
		{"_id": "fare", "ust": "aksesuar"},
		{"_id": "kitap", "ust": null}]`)...)
	got := run(t, st, "kategoriler", `[
		{"$match": {"_id": "fare"}},
		{"$graphLookup": {"from": "kategoriler", "startWith": "$ust", "connectFromField": "ust", "connectToField": "_id",
			"as": "atalar", "depthField": "derinlik"}},
		{"$project": {"atalar": {"$map": {"input": "$atalar", "in": {"ad": "$$this._id", "d": "$$this.derinlik"}}}}}]`)
	expect(t, got, `[{"_id": "fare", "atalar": [{"ad": "aksesuar", "d": {"$numberLong": "0"}}, {"ad": "bilgisayar", "d": {"$numberLong": "1"}}, {"ad": "elektronik", "d": {"$numberLong": "2"}}]}]`)

	// maxDepth bounds the walk; descendants go the other way.
	got = run(t, st, "kategoriler", `[
		{"$match": {"_id": "elektronik"}},
		{"$graphLookup": {"from": "kategoriler", "startWith": "$_id", "connectFromField": "_id", "connectToField": "ust", "as": "alt", "maxDepth": 1}},
		{"$project": {"alt": "$alt._id"}}]`)
	expect(t, got, `[{"_id": "elektronik", "alt": ["bilgisayar", "aksesuar"]}]`)

	// A cycle terminates.
	st.put("shop", "dongu", mustDocs(t, `[{"_id": 1, "next": 2}, {"_id": 2, "next": 1}]`)...)
	got = run(t, st, "dongu", `[{"$match": {"_id": 1}}, {"$graphLookup": {"from": "dongu", "startWith": "$next", "connectFromField": "next", "connectToField": "_id", "as": "r"}}, {"$project": {"n": {"$size": "$r"}}}]`)
	expect(t, got, `[{"_id": 1, "n": 2}]`)
}

func TestSeedBucketPattern(t *testing.T) {
	st := newMemStore()
	// The bucket pattern: transactions stored ten per document per customer,
	// filled by an upsert that matches a non-full bucket.
	var buckets []bson.D
	for i := 1; i <= 23; i++ {
		filter := bson.D{{Key: "musteriId", Value: "u42"}, {Key: "sayi", Value: bson.D{{Key: "$lt", Value: int32(10)}}}}
		u, err := update.Parse(bson.D{
			{Key: "$push", Value: bson.D{{Key: "islemler", Value: bson.D{{Key: "no", Value: int32(i)}, {Key: "tutar", Value: int32(i * 10)}}}}},
			{Key: "$inc", Value: bson.D{{Key: "sayi", Value: int32(1)}}},
		}, update.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Find the bucket the filter matches, as the server's query would.
		idx := -1
		f, err := query.ParseFilter(filter)
		if err != nil {
			t.Fatal(err)
		}
		for j, b := range buckets {
			if f.Match(b) {
				idx = j
				break
			}
		}
		if idx < 0 {
			seed, err := update.UpsertSeed(filter, false)
			if err != nil {
				t.Fatal(err)
			}
			seed = append(bson.D{{Key: "_id", Value: int32(len(buckets) + 1)}}, seed...)
			doc, _, err := u.Apply(seed, update.ApplyContext{Insert: true})
			if err != nil {
				t.Fatal(err)
			}
			buckets = append(buckets, doc)
			continue
		}
		doc, _, err := u.Apply(buckets[idx], update.ApplyContext{})
		if err != nil {
			t.Fatal(err)
		}
		buckets[idx] = doc
	}
	st.put("shop", "islemKovalari", buckets...)
	// Page 3 of the history (10 per page) is one document read.
	got := run(t, st, "islemKovalari", `[{"$match": {"musteriId": "u42"}}, {"$sort": {"_id": 1}}, {"$skip": 2}, {"$limit": 1},
		{"$project": {"_id": 0, "sayi": 1, "ilk": {"$first": "$islemler.no"}, "son": {"$last": "$islemler.no"}}}]`)
	expect(t, got, `[{"sayi": 3, "ilk": 21, "son": 23}]`)
	// Unwinding the buckets restores the individual transactions.
	got = run(t, st, "islemKovalari", `[{"$unwind": "$islemler"}, {"$group": {"_id": null, "n": {"$sum": 1}, "toplam": {"$sum": "$islemler.tutar"}}}]`)
	expect(t, got, `[{"_id": null, "n": 23, "toplam": 2760}]`)

	// $bucket groups books by page count ranges.
	st = seedStore(t)
	got = run(t, st, "kitaplar", `[{"$bucket": {"groupBy": "$sayfa", "boundaries": [0, 200, 400], "default": "uzun",
		"output": {"n": {"$sum": 1}, "basliklar": {"$push": "$baslik"}}}}]`)
	expect(t, got, `[{"_id": 0, "n": 1, "basliklar": ["Liman"]}, {"_id": 200, "n": 1, "basliklar": ["Kıyı"]}, {"_id": "uzun", "n": 1, "basliklar": ["Dağ"]}]`)
}

func TestSeedSubsetPatternReviews(t *testing.T) {
	// The subset pattern: keep only the three most recent reviews embedded.
	u, err := update.Parse(bson.D{{Key: "$push", Value: bson.D{{Key: "sonYorumlar", Value: bson.D{
		{Key: "$each", Value: bson.A{bson.D{{Key: "t", Value: int32(4)}, {Key: "metin", Value: "dört"}}}},
		{Key: "$sort", Value: bson.D{{Key: "t", Value: int32(-1)}}},
		{Key: "$slice", Value: int32(3)},
	}}}}}, update.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDocs(t, `[{"_id": 1, "sonYorumlar": [{"t": 3, "metin": "üç"}, {"t": 2, "metin": "iki"}, {"t": 1, "metin": "bir"}]}]`)[0]
	got, _, err := u.Apply(doc, update.ApplyContext{})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, []bson.D{got}, `[{"_id": 1, "sonYorumlar": [{"t": 4, "metin": "dört"}, {"t": 3, "metin": "üç"}, {"t": 2, "metin": "iki"}]}]`)
}

func TestSeedArchivingAndUnboundedArrays(t *testing.T) {
	st := seedStore(t)
	// Archiving: old orders move to another collection with $out.
	run(t, st, "siparisler", `[{"$match": {"tarih": {"$lt": {"$date": "2026-01-01T00:00:00Z"}}}}, {"$out": "arsivSiparisler"}]`)
	expect(t, st.all("shop", "arsivSiparisler"), `[{"_id": 5002, "musteriId": "u42", "tarih": {"$date": "2025-01-10T00:00:00Z"},
		"kalemler": [{"urunId": 9, "ad": "USB Bellek", "birimFiyat": 150, "adet": 3}], "toplam": 450}]`)

	// Finding the documents whose arrays grow the most (unbounded arrays).
	got := run(t, st, "siparisler", `[{"$project": {"kalemSayisi": {"$size": {"$ifNull": ["$kalemler", []]}}}}, {"$sort": {"kalemSayisi": -1, "_id": 1}}, {"$limit": 2}]`)
	expect(t, got, `[{"_id": 5001, "kalemSayisi": 2}, {"_id": 5002, "kalemSayisi": 1}]`)
}

func TestSeedPolymorphicAndFacet(t *testing.T) {
	st := newMemStore()
	// Polymorphic documents in one collection: e-book, print and audio formats.
	st.put("shop", "bicimler", mustDocs(t, `[
		{"_id": 1, "tur": "ekitap", "boyutMB": 3.5},
		{"_id": 2, "tur": "basili", "sayfa": 320, "agirlikGr": 450},
		{"_id": 3, "tur": "sesli", "sureDk": 610},
		{"_id": 4, "tur": "basili", "sayfa": 120}]`)...)
	got := run(t, st, "bicimler", `[{"$facet": {
		"turler": [{"$sortByCount": "$tur"}],
		"ozet": [{"$project": {"tur": 1, "olcu": {"$switch": {"branches": [
			{"case": {"$eq": ["$tur", "ekitap"]}, "then": {"$concat": [{"$toString": "$boyutMB"}, " MB"]}},
			{"case": {"$eq": ["$tur", "sesli"]}, "then": {"$concat": [{"$toString": {"$round": [{"$divide": ["$sureDk", 60]}, 1]}}, " sa"]}}],
			"default": {"$concat": [{"$toString": "$sayfa"}, " sayfa"]}}}}}, {"$sort": {"_id": 1}}]}}]`)
	expect(t, got, `[{"turler": [{"_id": "basili", "count": 2}, {"_id": "ekitap", "count": 1}, {"_id": "sesli", "count": 1}],
		"ozet": [{"_id": 1, "tur": "ekitap", "olcu": "3.5 MB"}, {"_id": 2, "tur": "basili", "olcu": "320 sayfa"},
		         {"_id": 3, "tur": "sesli", "olcu": "10.2 sa"}, {"_id": 4, "tur": "basili", "olcu": "120 sayfa"}]}]`)
}

func TestLeadingMatchPushdown(t *testing.T) {
	p, err := aggregate.Parse(mustArr(t, `[{"$match": {"a": 1}}, {"$match": {"b": 2}}, {"$project": {"a": 1}}]`), aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	filter, rest := p.LeadingMatch()
	if canon(t, []bson.D{filter}) != canon(t, mustDocs(t, `[{"$and": [{"a": 1}, {"b": 2}]}]`)) {
		t.Fatalf("filter = %v", filter)
	}
	if got := rest.StageNames(); len(got) != 1 || got[0] != "$project" {
		t.Fatalf("rest = %v", got)
	}
	out, err := rest.Collect(context.Background(), mustDocs(t, `[{"_id": 1, "a": 1, "b": 2}]`), aggregate.Env{})
	if err != nil || len(out) != 1 {
		t.Fatalf("rest run: %v %v", out, err)
	}
}

// The correlated $lookup form hands the Resolver an equality filter it can
// answer from an index on the foreign field.
func TestLookupScanHint(t *testing.T) {
	st := seedStore(t)
	run(t, st, "kullanicilar", `[{"$match": {"_id": "u7"}},
		{"$lookup": {"from": "siparisler", "let": {"mid": "$_id"}, "pipeline": [
			{"$match": {"$expr": {"$and": [{"$eq": ["$musteriId", "$$mid"]}, {"$gt": ["$toplam", 0]}]}}}], "as": "s"}}]`)
	want := mustDocs(t, `[{"musteriId": {"$eq": "u7"}}]`)
	if len(st.filters) != 1 || canon(t, st.filters) != canon(t, want) {
		t.Fatalf("scan filters = %v; want %v", st.filters, want)
	}
	st.filters = nil
	run(t, st, "kullanicilar", `[{"$match": {"_id": "u7"}},
		{"$lookup": {"from": "siparisler", "pipeline": [{"$match": {"toplam": {"$gt": 400}}}], "as": "s"}}]`)
	want = mustDocs(t, `[{"toplam": {"$gt": 400}}]`)
	if canon(t, st.filters) != canon(t, want) {
		t.Fatalf("scan filters = %v; want %v", st.filters, want)
	}
}

func TestSeedAttributeVersioningOutlier(t *testing.T) {
	st := newMemStore()
	// Attribute pattern: varying properties stored as [{k, v}] pairs so one
	// index covers them; $arrayToObject turns them back into fields.
	st.put("shop", "urunler", mustDocs(t, `[
		{"_id": 7, "ad": "Kablosuz Fare", "ozellikler": [{"k": "renk", "v": "siyah"}, {"k": "dpi", "v": 1600}]},
		{"_id": 9, "ad": "USB Bellek", "ozellikler": [{"k": "kapasiteGB", "v": 64}]}]`)...)
	got := run(t, st, "urunler", `[{"$match": {"ozellikler": {"$elemMatch": {"k": "dpi", "v": {"$gte": 1000}}}}},
		{"$replaceWith": {"$mergeObjects": [{"_id": "$_id", "ad": "$ad"}, {"$arrayToObject": "$ozellikler"}]}}]`)
	expect(t, got, `[{"_id": 7, "ad": "Kablosuz Fare", "renk": "siyah", "dpi": 1600}]`)

	// Versioning: documents of two schema versions read through one shape.
	st.put("shop", "musteriler", mustDocs(t, `[
		{"_id": 1, "ad": "Deniz", "telefon": "0555"},
		{"_id": 2, "semaSurumu": 2, "ad": "Ece", "iletisim": {"telefonlar": ["0532", "0212"]}}]`)...)
	got = run(t, st, "musteriler", `[{"$project": {"ad": 1, "surum": {"$ifNull": ["$semaSurumu", 1]},
		"telefon": {"$cond": [{"$gte": [{"$ifNull": ["$semaSurumu", 1]}, 2]}, {"$first": "$iletisim.telefonlar"}, "$telefon"]}}}]`)
	expect(t, got, `[{"_id": 1, "ad": "Deniz", "surum": 1, "telefon": "0555"}, {"_id": 2, "ad": "Ece", "surum": 2, "telefon": "0532"}]`)

	// Outlier pattern: a popular item overflows into extra documents that
	// only flagged items join.
	st.put("shop", "kitapAlicilar", mustDocs(t, `[
		{"_id": "k1", "alicilar": ["a", "b"], "tasma": true},
		{"_id": "k2", "alicilar": ["c"]}]`)...)
	st.put("shop", "kitapAlicilarEk", mustDocs(t, `[{"_id": 1, "kitapId": "k1", "alicilar": ["d", "e"]}]`)...)
	got = run(t, st, "kitapAlicilar", `[{"$match": {"tasma": true}},
		{"$lookup": {"from": "kitapAlicilarEk", "localField": "_id", "foreignField": "kitapId", "as": "ek"}},
		{"$project": {"hepsi": {"$concatArrays": ["$alicilar", {"$reduce": {"input": "$ek.alicilar", "initialValue": [], "in": {"$concatArrays": ["$$value", "$$this"]}}}]}}}]`)
	expect(t, got, `[{"_id": "k1", "hepsi": ["a", "b", "d", "e"]}]`)
}
