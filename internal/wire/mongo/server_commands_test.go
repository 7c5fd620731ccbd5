package mongo_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	wire "github.com/mayfly/mayfly/internal/wire/mongo"
)

// Ensure that the handshake commands answer with what drivers and mongosh
// need: a writable standalone with MongoDB 7.0's limits.
func TestHello(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client(t).Database("admin")
	for _, name := range []string{"hello", "isMaster", "ismaster"} {
		t.Run(name, func(t *testing.T) {
			r := mustRun(t, admin, bson.D{{Key: name, Value: 1}, {Key: "helloOk", Value: true}})
			primary := "ismaster"
			if name == "hello" {
				primary = "isWritablePrimary"
			}
			if !lookup(t, r, primary).Boolean() || !lookup(t, r, "helloOk").Boolean() {
				t.Fatalf("reply %v", r)
			}
			for field, want := range map[string]int32{
				"maxBsonObjectSize": 16777216, "maxMessageSizeBytes": 48000000, "maxWriteBatchSize": 100000,
				"logicalSessionTimeoutMinutes": 30, "minWireVersion": 0, "maxWireVersion": 21,
			} {
				if got := lookup(t, r, field).Int32(); got != want {
					t.Errorf("%s = %d, want %d", field, got, want)
				}
			}
			if lookup(t, r, "readOnly").Boolean() {
				t.Error("readOnly")
			}
			if got := lookup(t, r, "localTime").Time(); !got.Equal(ts.clock.Now().Truncate(1e6)) {
				t.Errorf("localTime = %v, want the injected clock", got)
			}
			if lookup(t, r, "connectionId").Int32() <= 0 {
				t.Error("connectionId")
			}
			// A standalone's topologyVersion: this process's id and a
			// counter that never moves.
			if _, ok := lookup(t, r, "topologyVersion", "processId").ObjectIDOK(); !ok {
				t.Errorf("topologyVersion.processId in %v", r)
			}
			if n, ok := lookup(t, r, "topologyVersion", "counter").Int64OK(); !ok || n != 0 {
				t.Errorf("topologyVersion.counter in %v", r)
			}
		})
	}
	t.Run("client metadata twice", func(t *testing.T) {
		// The driver sent client metadata in its handshake on this
		// connection already.
		cmdError(t, admin, bson.D{{Key: "hello", Value: 1}, {Key: "client", Value: bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "x"}}}}}},
			186, "ClientMetadataCannotBeMutated", "The client metadata document may only be sent in the first hello")
	})
}

func TestBuildInfoPingWhatsMyURI(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client(t).Database("admin")
	r := mustRun(t, admin, bson.D{{Key: "buildInfo", Value: 1}})
	if v := lookup(t, r, "version").StringValue(); !strings.HasPrefix(v, "7.0.") {
		t.Errorf("version = %q", v)
	}
	if vals, _ := lookup(t, r, "versionArray").Array().Values(); len(vals) != 4 || vals[0].Int32() != 7 {
		t.Errorf("versionArray = %v", vals)
	}
	for _, f := range []string{"gitVersion", "modules", "maxBsonObjectSize", "mayfly"} {
		lookup(t, r, f)
	}
	mustRun(t, admin, bson.D{{Key: "buildinfo", Value: 1}})
	mustRun(t, ts.client(t).Database("anydb"), bson.D{{Key: "ping", Value: 1}})
	r = mustRun(t, admin, bson.D{{Key: "whatsmyuri", Value: 1}})
	if you := lookup(t, r, "you").StringValue(); !strings.HasPrefix(you, "127.0.0.1:") {
		t.Errorf("you = %q", you)
	}
	r = mustRun(t, admin, bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}})
	if vals, _ := lookup(t, r, "authInfo", "authenticatedUsers").Array().Values(); len(vals) != 0 {
		t.Errorf("authenticatedUsers = %v", r)
	}
	lookup(t, r, "authInfo", "authenticatedUserPrivileges")
	r = mustRun(t, admin, bson.D{{Key: "hostInfo", Value: 1}})
	if lookup(t, r, "system", "numCores").Int32() < 1 {
		t.Errorf("hostInfo = %v", r)
	}
}

func TestUnknownCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	for _, name := range []string{"foo", "atlasVersion", "getLastError", "Find"} {
		cmdError(t, db, bson.D{{Key: name, Value: 1}}, 59, "CommandNotFound", "no such command: '"+name+"'")
	}
	r := mustRun(t, ts.client(t).Database("admin"), bson.D{{Key: "serverStatus", Value: 1}})
	if n := lookup(t, r, "metrics", "commands", "<UNKNOWN>").Int64(); n != 4 {
		t.Errorf("<UNKNOWN> = %d, want 4", n)
	}
}

func TestAdminOnly(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	for _, name := range []string{"getParameter", "setParameter", "getLog", "getCmdLineOpts", "listDatabases", "renameCollection"} {
		cmdError(t, db, bson.D{{Key: name, Value: 1}}, 13, "Unauthorized", name+" may only be run against the admin database.")
	}
}

// testParameter is a settable parameter as another component registers it.
type testParameter struct{ v int32 }

func (p *testParameter) param() wire.Parameter {
	return wire.Parameter{
		Name: "ttlMonitorSleepSecs",
		Get:  func() any { return p.v },
		Set: func(v any) error {
			var n int32
			switch x := v.(type) {
			case int32:
				n = x
			case int64:
				n = int32(x)
			case float64:
				n = int32(x)
			default:
				return errors.New("Can't coerce value")
			}
			if n <= 0 {
				return mongoerr.Newf(mongoerr.BadValue, "Invalid value for parameter ttlMonitorSleepSecs: %d is not greater than 0", n)
			}
			p.v = n
			return nil
		},
	}
}

func TestGetSetParameter(t *testing.T) {
	t.Parallel()
	p := &testParameter{v: 60}
	ts := startServer(t, func(o *wire.Options) {
		o.Parameters = []wire.Parameter{p.param(), {Name: "readOnlyParam", Get: func() any { return "x" }}}
	})
	admin := ts.client(t).Database("admin")

	r := mustRun(t, admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "featureCompatibilityVersion", Value: 1}})
	if v := lookup(t, r, "featureCompatibilityVersion", "version").StringValue(); v != "7.0" {
		t.Errorf("fcv = %q", v)
	}
	r = mustRun(t, admin, bson.D{{Key: "getParameter", Value: "*"}})
	for _, name := range []string{"featureCompatibilityVersion", "ttlMonitorSleepSecs", "readOnlyParam"} {
		lookup(t, r, name)
	}
	r = mustRun(t, admin, bson.D{{Key: "getParameter", Value: bson.D{{Key: "showDetails", Value: true}}}, {Key: "ttlMonitorSleepSecs", Value: 1}})
	if !lookup(t, r, "ttlMonitorSleepSecs", "settableAtRuntime").Boolean() || lookup(t, r, "ttlMonitorSleepSecs", "value").Int32() != 60 {
		t.Errorf("showDetails = %v", r)
	}
	cmdError(t, admin, bson.D{{Key: "getParameter", Value: "foo"}}, 72, "InvalidOptions", "no option found to get")
	cmdError(t, admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "nope", Value: 1}}, 72, "InvalidOptions", "no option found to get")
	cmdError(t, admin, bson.D{{Key: "getParameter", Value: bson.D{{Key: "bogus", Value: 1}}}}, 40415, "IDLUnknownField", "BSON field 'getParameter.bogus' is an unknown field.")

	r = mustRun(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 5}})
	if lookup(t, r, "was").Int32() != 60 || p.v != 5 {
		t.Errorf("set reply %v, value %d", r, p.v)
	}
	mustRun(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: int64(7)}})
	if p.v != 7 {
		t.Errorf("value %d after int64 7", p.v)
	}
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 0}},
		2, "BadValue", "Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0")
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: "x"}},
		2, "BadValue", "Can't coerce value")
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "foo", Value: 1}},
		72, "InvalidOptions", "attempted to set unrecognized parameter [foo], use help:true to see options ")
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "featureCompatibilityVersion", Value: "6.0"}},
		72, "InvalidOptions", "not allowed to change [featureCompatibilityVersion] at runtime")
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}},
		72, "InvalidOptions", "no option found to set, use help:true to see options ")
	cmdError(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 2}},
		72, "InvalidOptions", "attempted to set parameter [ttlMonitorSleepSecs] twice in the same setParameter command, once to value: [1], and once to value: [2]")
	if p.v != 7 {
		t.Errorf("value %d after failed sets", p.v)
	}
}

func TestGetLog(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(o *wire.Options) {
		o.StartupWarnings = []string{"Access control is not enabled for the database."}
	})
	admin := ts.client(t).Database("admin")
	r := mustRun(t, admin, bson.D{{Key: "getLog", Value: "*"}})
	if names := lookup(t, r, "names").Array(); names.Index(0).StringValue() != "global" {
		t.Errorf("names = %v", names)
	}
	r = mustRun(t, admin, bson.D{{Key: "getLog", Value: "startupWarnings"}})
	vals, _ := lookup(t, r, "log").Array().Values()
	if len(vals) != 1 {
		t.Fatalf("startupWarnings = %v", r)
	}
	var line struct {
		Msg  string   `json:"msg"`
		S    string   `json:"s"`
		Tags []string `json:"tags"`
		T    struct {
			Date string `json:"$date"`
		} `json:"t"`
	}
	if err := json.Unmarshal([]byte(vals[0].StringValue()), &line); err != nil || line.Msg != "Access control is not enabled for the database." || line.S != "W" || line.T.Date == "" {
		t.Errorf("line %q: %v", vals[0].StringValue(), err)
	}
	r = mustRun(t, admin, bson.D{{Key: "getLog", Value: "global"}})
	vals, _ = lookup(t, r, "log").Array().Values()
	found := false
	for _, v := range vals {
		found = found || strings.Contains(v.StringValue(), "Connection accepted")
	}
	if !found || lookup(t, r, "totalLinesWritten").Int32() < 1 {
		t.Errorf("global log has no connection line: %v", r)
	}
	cmdError(t, admin, bson.D{{Key: "getLog", Value: 1}}, 14, "TypeMismatch", "Argument to getLog must be of type String; found 1 of type int")
	cmdError(t, admin, bson.D{{Key: "getLog", Value: "nope"}}, 96, "OperationFailed", "no RamLog named: nope")
}

func TestGetCmdLineOpts(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(o *wire.Options) {
		o.CmdLineOpts = &wire.CmdLineOpts{Argv: []string{"mayfly", "serve"}, Parsed: bson.D{{Key: "net", Value: bson.D{{Key: "port", Value: 27017}}}}}
	})
	r := mustRun(t, ts.client(t).Database("admin"), bson.D{{Key: "getCmdLineOpts", Value: 1}})
	if lookup(t, r, "argv").Array().Index(1).StringValue() != "serve" || lookup(t, r, "parsed", "net", "port").Int32() != 27017 {
		t.Errorf("reply %v", r)
	}
}

func TestSessionsCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client(t).Database("admin")
	id := bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	mustRun(t, admin, bson.D{{Key: "endSessions", Value: bson.A{bson.D{{Key: "id", Value: id}}}}})
	mustRun(t, admin, bson.D{{Key: "killSessions", Value: bson.A{}}})
	mustRun(t, admin, bson.D{{Key: "killSessions", Value: bson.A{bson.D{{Key: "id", Value: id}}}}})
	cmdError(t, admin, bson.D{{Key: "endSessions", Value: 1}}, 14, "TypeMismatch", "BSON field 'endSessions.endSessions' is the wrong type 'int', expected type 'array'")
	cmdError(t, admin, bson.D{{Key: "endSessions", Value: bson.A{bson.D{}}}}, 40414, "IDLFailedToParse", "BSON field 'LogicalSessionFromClient.id' is missing but a required field")
}

func TestListCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	r := mustRun(t, ts.client(t).Database("admin"), bson.D{{Key: "listCommands", Value: 1}})
	elems, err := lookup(t, r, "commands").Document().Elements()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range elems {
		names = append(names, e.Key())
	}
	if !slices.IsSorted(names) {
		t.Errorf("commands not sorted: %v", names)
	}
	for _, want := range []string{"aggregate", "find", "getMore", "hello", "insert", "listCommands", "serverStatus", "update"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing from listCommands", want)
		}
	}
	if !lookup(t, r, "commands", "getParameter", "adminOnly").Boolean() {
		t.Error("getParameter is adminOnly")
	}
}

func TestServerStatus(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(o *wire.Options) {
		o.Status = []wire.StatusSection{
			{Path: "metrics.ttl", Value: func() bson.D { return bson.D{{Key: "passes", Value: int64(3)}} }},
			{Path: "batchedDeletes", Value: func() bson.D { return bson.D{{Key: "batches", Value: int64(1)}} }},
		}
	})
	cl := ts.client(t)
	coll := cl.Database("test").Collection("c")
	if _, err := coll.InsertMany(context.Background(), []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	admin := cl.Database("admin")
	ts.clock.Advance(90e9)
	r := mustRun(t, admin, bson.D{{Key: "serverStatus", Value: 1}})
	if lookup(t, r, "process").StringValue() != "mongod" || lookup(t, r, "uptimeMillis").Int64() != 90000 {
		t.Errorf("process/uptime: %v", r)
	}
	if lookup(t, r, "connections", "current").Int32() < 1 || lookup(t, r, "connections", "totalCreated").Int64() < 1 {
		t.Errorf("connections: %v", lookup(t, r, "connections"))
	}
	if lookup(t, r, "opcounters", "insert").Int64() != 2 || lookup(t, r, "opcounters", "query").Int64() != 1 {
		t.Errorf("opcounters: %v", lookup(t, r, "opcounters"))
	}
	if lookup(t, r, "metrics", "document", "inserted").Int64() != 2 || lookup(t, r, "metrics", "document", "returned").Int64() != 1 {
		t.Errorf("metrics.document: %v", lookup(t, r, "metrics", "document"))
	}
	if lookup(t, r, "metrics", "commands", "insert", "total").Int64() != 1 {
		t.Errorf("metrics.commands: %v", lookup(t, r, "metrics", "commands"))
	}
	if lookup(t, r, "metrics", "ttl", "passes").Int64() != 3 || lookup(t, r, "batchedDeletes", "batches").Int64() != 1 {
		t.Errorf("status sections missing: %v", r)
	}
	for _, f := range []string{"host", "version", "pid", "uptime", "localTime", "mem", "network"} {
		lookup(t, r, f)
	}
	// One find is a read, one insert a write; serverStatus itself is a
	// command, and only the histograms option adds histograms.
	if lookup(t, r, "opLatencies", "reads", "ops").Int64() != 1 || lookup(t, r, "opLatencies", "writes", "ops").Int64() != 1 ||
		lookup(t, r, "opLatencies", "transactions", "ops").Int64() != 0 {
		t.Errorf("opLatencies: %v", lookup(t, r, "opLatencies"))
	}
	if _, err := r.LookupErr("opLatencies", "reads", "histogram"); err == nil {
		t.Error("opLatencies has histograms without the histograms option")
	}
	r = mustRun(t, admin, bson.D{{Key: "serverStatus", Value: 1}, {Key: "opLatencies", Value: bson.D{{Key: "histograms", Value: true}}}})
	for _, class := range []string{"reads", "writes", "commands"} {
		var counted int64
		hist, _ := lookup(t, r, "opLatencies", class, "histogram").Array().Values()
		for _, b := range hist {
			counted += b.Document().Lookup("count").Int64()
		}
		if ops := lookup(t, r, "opLatencies", class, "ops").Int64(); ops < 1 || counted != ops {
			t.Errorf("opLatencies.%s: histogram counts %d of %d ops", class, counted, ops)
		}
	}
	r = mustRun(t, admin, bson.D{{Key: "serverStatus", Value: 1}, {Key: "metrics", Value: 0}, {Key: "opcounters", Value: false}})
	if _, err := r.LookupErr("metrics"); err == nil {
		t.Error("metrics: 0 did not exclude metrics")
	}
	if _, err := r.LookupErr("opcounters"); err == nil {
		t.Error("opcounters: false did not exclude opcounters")
	}
}

// $collStats latencyStats counts a collection's reads and writes, with
// histograms on request, and starts again when the collection is dropped.
func TestCollStatsLatencyStats(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	bg := context.Background()
	c := db.Collection("lat")
	if _, err := c.InsertMany(bg, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := c.FindOne(bg, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Collection("other").FindOne(bg, bson.D{}).Err(); !errors.Is(err, drv.ErrNoDocuments) {
		t.Fatal(err)
	}
	latencyStats := func(spec bson.D) bson.Raw {
		r := mustRun(t, db, bson.D{{Key: "aggregate", Value: "lat"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$collStats", Value: bson.D{{Key: "latencyStats", Value: spec}}}},
		}}, {Key: "cursor", Value: bson.D{}}})
		return lookup(t, r, "cursor", "firstBatch").Array().Index(0).Document().Lookup("latencyStats").Document()
	}
	ls := latencyStats(bson.D{})
	// The aggregates asking are reads too, counted once they are answered.
	if lookup(t, ls, "reads", "ops").Int64() != 3 || lookup(t, ls, "writes", "ops").Int64() != 1 ||
		lookup(t, ls, "commands", "ops").Int64() != 0 || lookup(t, ls, "transactions", "ops").Int64() != 0 {
		t.Errorf("latencyStats = %v, want 3 reads, 1 write", ls)
	}
	if _, err := ls.LookupErr("reads", "histogram"); err == nil {
		t.Error("histogram without histograms: true")
	}
	ls = latencyStats(bson.D{{Key: "histograms", Value: true}})
	hist, _ := lookup(t, ls, "reads", "histogram").Array().Values()
	var counted int64
	for _, b := range hist {
		counted += b.Document().Lookup("count").Int64()
	}
	if counted != 4 || lookup(t, ls, "reads", "ops").Int64() != 4 {
		t.Errorf("reads histogram counts %d, ops %d; want 4", counted, lookup(t, ls, "reads", "ops").Int64())
	}
	if err := c.Drop(bg); err != nil {
		t.Fatal(err)
	}
	if ls = latencyStats(bson.D{}); lookup(t, ls, "reads", "ops").Int64() != 0 || lookup(t, ls, "writes", "ops").Int64() != 0 {
		t.Errorf("after drop: %v", ls)
	}
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "lat"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$collStats", Value: bson.D{{Key: "latencyStats", Value: 1}}}},
	}}, {Key: "cursor", Value: bson.D{}}}, 14, "TypeMismatch", "BSON field '$collStats.latencyStats' is the wrong type 'int', expected type 'object'")
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "lat"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$collStats", Value: bson.D{{Key: "latencyStats", Value: bson.D{{Key: "histograms", Value: "yes"}}}}}},
	}}, {Key: "cursor", Value: bson.D{}}}, 14, "TypeMismatch", "BSON field '$collStats.latencyStats.histograms' is the wrong type 'string', expected type 'bool'")
}
