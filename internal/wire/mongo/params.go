package mongo

import (
	"slices"
	"strings"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// featureCompatibilityVersion is the FCV mayfly reports: the MongoDB
// release whose behaviour it reproduces.
const featureCompatibilityVersion = "7.0"

// paramRegistry holds the server parameters, sorted by name.
type paramRegistry struct {
	params []Parameter
}

func newParamRegistry(extra []Parameter) *paramRegistry {
	ps := []Parameter{{
		Name:        "featureCompatibilityVersion",
		Get:         func() any { return bson.D{{Key: "version", Value: featureCompatibilityVersion}} },
		StartupOnly: false,
	}}
	ps = append(ps, extra...)
	slices.SortFunc(ps, func(a, b Parameter) int { return strings.Compare(a.Name, b.Name) })
	return &paramRegistry{params: ps}
}

func (r *paramRegistry) lookup(name string) (*Parameter, bool) {
	i, ok := slices.BinarySearchFunc(r.params, name, func(p Parameter, n string) int { return strings.Compare(p.Name, n) })
	if !ok {
		return nil, false
	}
	return &r.params[i], true
}

// set applies v to the parameter, turning a plain error into BadValue.
func (p *Parameter) set(v bson.RawValue) error {
	if err := p.Set(rawValueToAny(v)); err != nil {
		if _, ok := mongoerr.As(err); ok {
			return err
		}
		return mongoerr.New(mongoerr.BadValue, err.Error())
	}
	return nil
}
