package mongo

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestTxnNumberNeedsSession(t *testing.T) {
	t.Parallel()
	_, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	rc.send(rc.msg(0, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "txnNumber", Value: int64(1)}, {Key: "$db", Value: "test"}}))
	r := rc.reply()
	if r.Lookup("code").Int32() != 72 || r.Lookup("errmsg").StringValue() != "Transaction number requires a session ID to also be specified" {
		t.Fatalf("reply %v", r)
	}
}
