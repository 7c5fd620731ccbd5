package aggregate

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func TestRand(t *testing.T) {
	for range 100 {
		got, err := evalExpr(bson.D{{Key: "$rand", Value: bson.D{}}}, bson.D{})
		f, ok := got.(float64)
		if err != nil || !ok || f < 0 || f >= 1 {
			t.Fatalf("$rand = %v (%T), %v; want a double in [0, 1)", got, got, err)
		}
	}
	_, err := evalExpr(bson.D{{Key: "$rand", Value: bson.D{{Key: "a", Value: 1}}}}, bson.D{})
	if e, ok := mongoerr.As(err); !ok || e.Code != mongoerr.Location3040500 {
		t.Fatalf("$rand with an argument: %v, want 3040500", err)
	}
}
