package integration_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that mongosh's db.currentOp(), db.aggregate([{$currentOp: {}}])
// and db.killOp() work against the real binary, with MongoDB's fields.
func TestMongoshCurrentOpAndKillOp(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	if _, err := cl.Database("app").Collection("items").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	out := mongosh(t, s, "admin", "", "--quiet", "--eval", `
const r = db.currentOp();
const self = r.inprog.find(op => op.command && op.command.currentOp !== undefined || op.ns === "admin.$cmd.aggregate");
print("currentOp", r.ok, self.type, self.active, self.op, typeof self.opid, self.appName.startsWith("mongosh"), self.desc.startsWith("conn"));
const all = db.currentOp(true);
print("all", all.inprog.length >= 2);
const filtered = db.currentOp({ns: "nowhere.$cmd"});
print("filtered", filtered.inprog.length);
const agg = db.aggregate([{$currentOp: {idleConnections: true}}, {$match: {active: false}}, {$count: "idle"}]).toArray();
print("idle", agg.length === 1 && agg[0].idle >= 1);
const k = db.killOp(123456);
print("killOp", k.info, k.ok);
try { db.getSiblingDB("app").runCommand({currentOp: 1}); } catch (e) { print("error", e.codeName); }`)
	for _, want := range []string{
		"currentOp 1 op true command number true true",
		"all true",
		"filtered 0",
		"idle true",
		"killOp attempting to kill op 1",
		"error Unauthorized",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mongosh output lacks %q:\n%s", want, out)
		}
	}
}
