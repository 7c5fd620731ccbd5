package mongo

import (
	"bytes"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that the hand-encoded cursor document is byte for byte what the
// driver's encoder makes of the same fields, for empty, small and
// multi-digit batches.
func TestCursorDocEncoding(t *testing.T) {
	for _, n := range []int{0, 1, 10, 11, 101} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			batch := make([]bson.Raw, n)
			arr := bson.A{}
			for i := range batch {
				batch[i], _ = bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "x"}})
				arr = append(arr, batch[i])
			}
			want, err := bson.Marshal(bson.D{{Key: "firstBatch", Value: arr}, {Key: "id", Value: int64(42)}, {Key: "ns", Value: "db.coll"}})
			if err != nil {
				t.Fatal(err)
			}
			got := cursorDoc("firstBatch", batch, 42, "db.coll")
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %v\nwant %v", bson.Raw(got), bson.Raw(want))
			}
			if cap(got) != len(got) {
				t.Errorf("size estimate %d, encoded %d", cap(got), len(got))
			}
		})
	}
}
