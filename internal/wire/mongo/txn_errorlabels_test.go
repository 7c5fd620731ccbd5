package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
)

// Ensure that an error of a command in a transaction carries
// TransientTransactionError as MongoDB labels it (conflicts and not-primary
// errors of a statement, NoSuchTransaction of a commit, not a commit's
// not-primary error, not when failCommand gives its own labels), and that a
// statement the failCommand fail point failed leaves the transaction open.
func TestTransactionErrorsTransientLabel(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	cl := noRetryClient(t, ts, "")
	admin := cl.Database("admin")
	c := cl.Database("bank").Collection("acct")
	ctx := context.Background()
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		command string
		data    bson.D
		want    bool
	}{
		{"insert", bson.D{{Key: "errorCode", Value: 112}}, true},
		{"insert", bson.D{{Key: "errorCode", Value: 10107}}, true},
		{"insert", bson.D{{Key: "errorCode", Value: 2}}, false},
		{"insert", bson.D{{Key: "errorCode", Value: 112}, {Key: "errorLabels", Value: bson.A{}}}, false},
		{"commitTransaction", bson.D{{Key: "errorCode", Value: 251}}, true},
		{"commitTransaction", bson.D{{Key: "errorCode", Value: 10107}}, false},
	} {
		data := append(bson.D{{Key: "failCommands", Value: bson.A{tc.command}}}, tc.data...)
		mustRun(t, admin, failCommand(bson.D{{Key: "times", Value: 1}}, data))
		sess, err := cl.StartSession()
		if err != nil {
			t.Fatal(err)
		}
		err = drv.WithSession(ctx, sess, func(ctx context.Context) error {
			if err := sess.StartTransaction(); err != nil {
				return err
			}
			_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i*10 + 1}})
			if tc.command == "insert" {
				if err == nil || hasLabel(err, "TransientTransactionError") != tc.want {
					t.Errorf("case %d: insert error %v, want TransientTransactionError %v", i, err, tc.want)
				}
				// The transaction is still open: the next statement and the
				// commit succeed.
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i*10 + 2}}); err != nil {
					t.Errorf("case %d: statement after the failed one: %v", i, err)
				}
			} else if err != nil {
				t.Errorf("case %d: insert: %v", i, err)
			}
			err = sess.CommitTransaction(ctx)
			if tc.command == "commitTransaction" {
				if err == nil || hasLabel(err, "TransientTransactionError") != tc.want {
					t.Errorf("case %d: commit error %v, want TransientTransactionError %v", i, err, tc.want)
				}
			} else if err != nil {
				t.Errorf("case %d: commit: %v", i, err)
			}
			return nil
		})
		sess.EndSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
}
