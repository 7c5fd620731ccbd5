package integration_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that concurrent single-document writes into one collection of a
// replica set, which the primary commits in groups, keep a unique index
// exact and lose no update: of several clients inserting the same email
// exactly one is acknowledged and the others get E11000, concurrent $inc
// of one document add up, and every acknowledged insert is on every
// member.
func TestReplSetConcurrentUniqueInserts(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	coll := setClient(t, set).Database("app").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}},
		Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "counter"}, {Key: "email", Value: "counter"}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}

	const (
		clients = 16
		perEach = 30
		emails  = 120 // each email is tried by clients*perEach/emails = 4 clients
	)
	var mu sync.Mutex
	acked := map[string][]string{} // email -> _ids acknowledged
	dups, incs := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perEach; i++ {
				email := fmt.Sprintf("u%d@example.com", (c*perEach+i)%emails)
				id := fmt.Sprintf("c%d-%d", c, i)
				_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "email", Value: email}})
				var we mongo.WriteException
				switch {
				case err == nil:
					mu.Lock()
					acked[email] = append(acked[email], id)
					mu.Unlock()
				case errors.As(err, &we) && we.HasErrorCode(11000):
					mu.Lock()
					dups++
					mu.Unlock()
				default:
					errs <- fmt.Errorf("insert %s: %w", id, err)
					return
				}
				if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "counter"}},
					bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
					errs <- fmt.Errorf("update by client %d: %w", c, err)
					return
				}
				mu.Lock()
				incs++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want []string
	for e := 0; e < emails; e++ {
		ids := acked[fmt.Sprintf("u%d@example.com", e)]
		if len(ids) != 1 {
			t.Fatalf("email u%d@example.com: %d acknowledged inserts %v, want exactly 1", e, len(ids), ids)
		}
		want = append(want, ids[0])
	}
	if dups != clients*perEach-emails {
		t.Fatalf("%d duplicate key errors, want %d", dups, clients*perEach-emails)
	}
	want = append(want, "counter")
	slices.Sort(want)

	for j, m := range set.Members {
		mc := memberClient(t, m).Database("app").Collection("users")
		var got []string
		n := -1
		eventually(t, 10*time.Second, fmt.Sprintf("member %d holds the acknowledged writes", j), func() bool {
			got, n = nil, -1
			cur, err := mc.Find(ctx, bson.D{})
			if err != nil {
				return false
			}
			var docs []struct {
				ID string `bson:"_id"`
				N  int    `bson:"n"`
			}
			if err := cur.All(ctx, &docs); err != nil {
				return false
			}
			for _, d := range docs {
				got = append(got, d.ID)
				if d.ID == "counter" {
					n = d.N
				}
			}
			slices.Sort(got)
			return slices.Equal(got, want) && n == incs
		})
	}
}
