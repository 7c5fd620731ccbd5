package mongo

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A transaction's first statement failed by the failCommand fail point
// never ran, so its retry with startTransaction at the same number starts
// the transaction (as the drivers' backpressure retries send it), instead
// of ConflictingOperationInProgress.
func TestTxnFirstStatementRetryAfterFailCommand(t *testing.T) {
	t.Parallel()
	_, addr, _ := rawServer(t, func(o *Options) { o.TestCommands = true })
	rc := dialRaw(t, addr)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}
	rc.send(rc.msg(0, bson.D{
		{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: int32(1)}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: int32(112)}}},
		{Key: "$db", Value: "admin"},
	}))
	if r := rc.reply(); r.Lookup("ok").Double() != 1 {
		t.Fatalf("configureFailPoint: %v", r)
	}
	insert := bson.D{
		{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: int32(2)}}}},
		{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)},
		{Key: "startTransaction", Value: true}, {Key: "autocommit", Value: false}, {Key: "$db", Value: "test"},
	}
	rc.send(rc.msg(0, insert))
	if r := rc.reply(); r.Lookup("code").Int32() != 112 {
		t.Fatalf("first attempt: %v, want the fail point's 112", r)
	}
	rc.send(rc.msg(0, insert))
	if r := rc.reply(); r.Lookup("ok").Double() != 1 || r.Lookup("n").Int32() != 1 {
		t.Fatalf("retry with startTransaction: %v", r)
	}
	rc.send(rc.msg(0, bson.D{
		{Key: "commitTransaction", Value: 1}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)},
		{Key: "autocommit", Value: false}, {Key: "$db", Value: "admin"},
	}))
	if r := rc.reply(); r.Lookup("ok").Double() != 1 {
		t.Fatalf("commit: %v", r)
	}
	rc.send(rc.msg(0, bson.D{{Key: "count", Value: "c"}, {Key: "$db", Value: "test"}}))
	if r := rc.reply(); r.Lookup("n").AsInt64() != 1 {
		t.Fatalf("count after commit: %v", r)
	}
}
