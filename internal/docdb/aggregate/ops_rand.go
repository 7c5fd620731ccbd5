package aggregate

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(compileRand, "$rand")
}

// compileRand compiles $rand: {}, a double drawn uniformly from [0, 1) at
// each evaluation. It takes no argument.
func compileRand(_ *compiler, _ string, arg any) (evalFn, error) {
	if d, ok := asDoc(arg); !ok || len(d) != 0 {
		return nil, mongoerr.New(mongoerr.Location3040500, "$rand does not currently accept arguments")
	}
	return func(*Vars, bson.D) (any, error) { return rand.Float64(), nil }, nil
}
