package mongo_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that an awaitable hello is validated as MongoDB 7.0 validates it
// (its IDL's errors, then its own) and waits only when the client's
// topologyVersion is this process's current one: a standalone's never
// changes, so the reply comes when maxAwaitTimeMS has passed, with the
// same version; another processId is answered at once.
func TestAwaitableHello(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client(t).Database("admin")
	tv := lookup(t, mustRun(t, admin, bson.D{{Key: "hello", Value: 1}}), "topologyVersion").Document()
	pid := tv.Lookup("processId").ObjectID()
	tvDoc := bson.D{{Key: "processId", Value: pid}, {Key: "counter", Value: int64(0)}}

	for _, tc := range []struct {
		name string
		cmd  bson.D
		code int32
		cn   string
		msg  string
	}{
		{"maxAwaitTimeMS alone", bson.D{{Key: "hello", Value: 1}, {Key: "maxAwaitTimeMS", Value: 0}},
			31368, "Location31368", "A request with 'maxAwaitTimeMS' must include a 'topologyVersion'"},
		{"topologyVersion alone", bson.D{{Key: "isMaster", Value: 1}, {Key: "topologyVersion", Value: tvDoc}},
			31368, "Location31368", "A request with a 'topologyVersion' must include 'maxAwaitTimeMS'"},
		{"negative maxAwaitTimeMS", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tvDoc}, {Key: "maxAwaitTimeMS", Value: -1}},
			51024, "Location51024", "BSON field 'maxAwaitTimeMS' value must be >= 0, actual value '-1'"},
		{"string maxAwaitTimeMS", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tvDoc}, {Key: "maxAwaitTimeMS", Value: "x"}},
			14, "TypeMismatch", "BSON field 'hello.maxAwaitTimeMS' is the wrong type 'string', expected types '[long, int, decimal, double']"},
		{"negative counter", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: pid}, {Key: "counter", Value: int64(-1)}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			31372, "Location31372", "topologyVersion must have a non-negative counter"},
		{"newer counter", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: pid}, {Key: "counter", Value: int64(1)}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			51764, "Location51764", "Received a topology version with counter: 1 which is greater than the server topology version counter: 0"},
		{"topologyVersion not a document", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: "v"}, {Key: "maxAwaitTimeMS", Value: 0}},
			14, "TypeMismatch", "BSON field 'hello.topologyVersion' is the wrong type 'string', expected type 'object'"},
		{"processId not an ObjectId", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: "p"}, {Key: "counter", Value: int64(0)}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			14, "TypeMismatch", "BSON field 'hello.topologyVersion.processId' is the wrong type 'string', expected type 'objectId'"},
		{"counter not a long", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: pid}, {Key: "counter", Value: int32(0)}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			14, "TypeMismatch", "BSON field 'hello.topologyVersion.counter' is the wrong type 'int', expected type 'long'"},
		{"counter missing", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: pid}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			40414, "IDLFailedToParse", "BSON field 'hello.topologyVersion.counter' is missing but a required field"},
		{"unknown field", bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: pid}, {Key: "counter", Value: int64(0)}, {Key: "x", Value: 1}}}, {Key: "maxAwaitTimeMS", Value: 0}},
			40415, "IDLUnknownField", "BSON field 'hello.topologyVersion.x' is an unknown field."},
	} {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, admin, tc.cmd, tc.code, tc.cn, tc.msg) })
	}

	t.Run("waits for maxAwaitTimeMS", func(t *testing.T) {
		start := time.Now()
		r := mustRun(t, admin, bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tvDoc}, {Key: "maxAwaitTimeMS", Value: 100}})
		if d := time.Since(start); d < 100*time.Millisecond {
			t.Fatalf("answered after %v, before maxAwaitTimeMS", d)
		}
		if got := lookup(t, r, "topologyVersion").Document(); string(got) != string(tv) {
			t.Fatalf("topologyVersion %v after the wait, want %v", got, tv)
		}
	})
	t.Run("another process is answered at once", func(t *testing.T) {
		// A wait of an hour would outlast the client's 20 s timeout.
		other := bson.D{{Key: "processId", Value: bson.NewObjectID()}, {Key: "counter", Value: int64(7)}}
		r := mustRun(t, admin, bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: other}, {Key: "maxAwaitTimeMS", Value: 3_600_000}})
		if got := lookup(t, r, "topologyVersion", "processId").ObjectID(); got != pid {
			t.Fatalf("processId %v, want %v", got, pid)
		}
	})
}
