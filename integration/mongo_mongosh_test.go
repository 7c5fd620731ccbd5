package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// mongosh runs mongosh against the server's database db, feeding stdin as
// an interactive session would be typed, and returns everything it printed.
func mongosh(t *testing.T, s *harness.Server, db, stdin string, args ...string) string {
	t.Helper()
	bin := harness.Tool(t, "mongosh")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	full := append([]string{"mongodb://" + s.MongoAddr + "/" + db}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Stdin = strings.NewReader(stdin)
	// mongosh keeps its history, logs and telemetry state under HOME.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("mongosh %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

func seedScript(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantOutput(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("mongosh output lacks %q:\n%s", w, out)
		}
	}
	for _, bad := range []string{"MongoServerError", "MongoNetworkError", "MongoServerSelectionError", "Uncaught", "SyntaxError"} {
		if strings.Contains(out, bad) {
			t.Errorf("mongosh output has %q:\n%s", bad, out)
		}
	}
}

// failedCommands returns serverStatus's metrics.commands entries with
// failures, and the count of unknown commands.
func failedCommands(t *testing.T, s *harness.Server) (map[string]int64, int64) {
	t.Helper()
	cl := mongoClient(t, s)
	raw, err := cl.Database("admin").RunCommand(t.Context(), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	elems, err := raw.Lookup("metrics", "commands").Document().Elements()
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]int64{}
	var unknown int64
	for _, e := range elems {
		if e.Key() == "<UNKNOWN>" {
			unknown = e.Value().Int64()
			continue
		}
		if n := e.Value().Document().Lookup("failed").Int64(); n > 0 {
			failed[e.Key()] = n
		}
	}
	return failed, unknown
}

// Ensure that mongosh reaches its prompt without errors and that the shell
// helpers people type first work: show dbs, show collections, getIndexes.
func TestMongoshPromptAndShowCommands(t *testing.T) {
	s := harness.Start(t)
	shop := mongoClient(t, s).Database("shop")
	if _, err := shop.Collection("items").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "kalem"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := shop.Collection("items").Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := shop.Collection("carts").InsertOne(t.Context(), bson.D{{Key: "_id", Value: "c1"}}); err != nil {
		t.Fatal(err)
	}

	out := mongosh(t, s, "shop", "show dbs\nshow collections\ndb.items.getIndexes()\nexit\n")
	wantOutput(t, out,
		"Using MongoDB:\t\t7.0.",
		"Using Mongosh:",
		"shop>",
		"carts",
		"items",
		"{ v: 2, key: { _id: 1 }, name: '_id_' }",
		"{ v: 2, key: { name: 1 }, name: 'name_1' }",
	)
	if !strings.Contains(out, "shop ") {
		t.Errorf("show dbs does not list shop:\n%s", out)
	}

	// What mongosh sends on connect either works or is the probe it
	// expects to fail: getParameter "foo" (server identification) and
	// atlasVersion (not Atlas).
	failed, unknown := failedCommands(t, s)
	for name := range failed {
		if name != "getParameter" {
			t.Errorf("command %s failed during the session (%v)", name, failed)
		}
	}
	if unknown == 0 {
		t.Error("mongosh's atlasVersion probe was not answered as an unknown command")
	}
}

// Ensure that the mongosh examples of a Turkish MongoDB data-modelling
// article (testdata) run verbatim and give the results the article
// describes.
func TestMongoshSeed003Examples(t *testing.T) {
	s := harness.Start(t)

	// The three examples typed into one interactive session, each
	// followed by the read the seed describes: the publisher's books, the
	// user found through a dotted path into the embedded array, and the
	// order with its product subset.
	session := seedScript(t, "seed003_references.js") + "\n" +
		"db.kullanicilar.insertOne(\n" + seedScript(t, "seed003_embedded.js") + ")\n" +
		`db.kullanicilar.findOne({ "adresler.sehir": "Bursa" })` + "\n" +
		seedScript(t, "seed003_order.js") +
		"db.siparisler.findOne({ _id: 5001 })\nexit\n"
	out := mongosh(t, s, "seed", session)
	wantOutput(t, out,
		"{ acknowledged: true, insertedId: 'deniz-yayin' }",
		"{ acknowledged: true, insertedIds: { '0': 1001, '1': 1002 } }",
		"{ _id: 1001, baslik: 'Kıyı', sayfa: 210, yayineviId: 'deniz-yayin' }",
		"{ _id: 1002, baslik: 'Liman', sayfa: 184, yayineviId: 'deniz-yayin' }",
		"{ acknowledged: true, insertedId: 'u42' }",
		"iletisim: { eposta: 'deniz@example.com', telefon: '0555 000 00 00' }",
		"adresler: [ { tur: 'ev', sehir: 'Bursa' }, { tur: 'is', sehir: 'İstanbul' } ]",
		"{ acknowledged: true, insertedId: 5001 }",
		"tarih: ISODate('2026-11-05T00:00:00.000Z')",
		"{ urunId: 7, ad: 'Kablosuz Fare', birimFiyat: 450, adet: 2 }",
		"{ urunId: 9, ad: 'USB Bellek', birimFiyat: 180, adet: 1 }",
		"toplam: 1080",
	)

	// The seed says the books query needs an index on yayineviId: with it
	// the plan is an index scan. The order's total is the sum of its
	// embedded lines.
	out = mongosh(t, s, "seed", "", "--quiet", "--eval", `
		db.kitaplar.createIndex({ yayineviId: 1 });
		const plan = db.kitaplar.find({ yayineviId: "deniz-yayin" }).explain("executionStats");
		print("stage=" + plan.queryPlanner.winningPlan.inputStage.stage + " index=" + plan.queryPlanner.winningPlan.inputStage.indexName + " returned=" + plan.executionStats.nReturned);
		print("publisher=" + db.yayinevleri.findOne({ _id: "deniz-yayin" }).ad);
		const o = db.siparisler.findOne({ _id: 5001 });
		print("sum=" + o.kalemler.reduce((s, k) => s + k.birimFiyat * k.adet, 0) + " toplam=" + o.toplam)`)
	wantOutput(t, out, "stage=IXSCAN index=yayineviId_1 returned=2", "publisher=Deniz Yayınları", "sum=1080 toplam=1080")
}

// Ensure that mongosh's latency helpers read what the server keeps:
// db.collection.latencyStats() ($collStats) and serverStatus's opLatencies.
func TestMongoshLatencyStats(t *testing.T) {
	s := harness.Start(t)
	shop := mongoClient(t, s).Database("shop")
	if _, err := shop.Collection("items").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	out := mongosh(t, s, "shop", "", "--quiet", "--eval", `
const ls = db.items.latencyStats({histograms: true})[0].latencyStats;
print("writes", ls.writes.ops, ls.writes.histogram.length, "reads", ls.reads.ops);
const ol = db.serverStatus().opLatencies;
print("server writes", ol.writes.ops, "has histogram", "histogram" in ol.writes);`)
	wantOutput(t, out, "writes Long('1') 1 reads Long('0')", "server writes Long('1') has histogram false")
}
