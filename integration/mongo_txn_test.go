package integration_test

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// The account transfer: two updates in one transaction through mongosh's
// session API; the second session sees nothing before the commit, both
// changes after it, and an aborted transfer leaves no trace.
func TestMongoshSeed003Transfer(t *testing.T) {
	s := harness.Start(t)
	out := mongosh(t, s, "seed", seedScript(t, "seed003_transfer.js")+"exit\n")
	wantOutput(t, out,
		"{ _id: 'mehmet', bakiye: 100 }",
		"[ { _id: 'ayse', bakiye: 300 }, { _id: 'mehmet', bakiye: 300 } ]",
		"{ _id: 'ayse', bakiye: 300 }",
	)
}

// mongoose's session.withTransaction: a transfer commits whole, a thrown
// error aborts it, and concurrent transfers on the same accounts are
// retried by the driver until each commits once.
func TestMongooseWithTransaction(t *testing.T) {
	s := harness.Start(t)
	runMongoNodeScript(t, s, "mongoose_txn_test.js", 2*time.Minute)
}
