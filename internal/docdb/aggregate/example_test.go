package aggregate_test

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

func ExampleCompile() {
	e, err := aggregate.Compile(bson.D{{Key: "$concat", Value: bson.A{
		"$first", " ", bson.D{{Key: "$toUpper", Value: "$last"}},
	}}})
	if err != nil {
		panic(err)
	}
	v, err := e.Eval(aggregate.NewVars(time.Now()), bson.D{{Key: "first", Value: "Ada"}, {Key: "last", Value: "Lovelace"}})
	fmt.Println(v, err)
	// Output: Ada LOVELACE <nil>
}

func ExamplePipeline_LeadingMatch() {
	p, err := aggregate.Parse(bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: "open"}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$owner"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}, aggregate.Options{})
	if err != nil {
		panic(err)
	}
	filter, rest := p.LeadingMatch()
	fmt.Println(aggregate.FormatValue(filter), rest.StageNames())
	// The caller answers filter from an index and runs the rest.
	docs := []bson.D{
		{{Key: "owner", Value: "ann"}, {Key: "status", Value: "open"}},
		{{Key: "owner", Value: "ann"}, {Key: "status", Value: "open"}},
	}
	out, err := rest.Collect(context.Background(), docs, aggregate.Env{})
	fmt.Println(aggregate.FormatValue(out[0]), err)
	// Output:
	// { status: "open" } [$group]
	// { _id: "ann", n: 2 } <nil>
}
