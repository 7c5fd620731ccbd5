package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgSetParameter answers {setParameter: 1, <name>: <value>, ...}: every
// name is checked before anything is set, and the reply's "was" holds the
// first parameter's old value, as in MongoDB.
func msgSetParameter(_ context.Context, c *conn, req *request) (bson.D, error) {
	elems, err := req.cmd.Elements()
	if err != nil {
		return nil, errorf(mongoerr.InvalidBSON, "invalid command: %v", err)
	}
	type change struct {
		p *Parameter
		v bson.RawValue
	}
	var changes []change
	seen := map[string]bson.RawValue{}
	for _, el := range elems[1:] {
		name := el.Key()
		if genericArgs[name] {
			continue
		}
		p, ok := c.s.params.lookup(name)
		if !ok {
			return nil, errorf(mongoerr.InvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options ", name)
		}
		if p.Set == nil {
			return nil, errorf(mongoerr.InvalidOptions, "not allowed to change [%s] at runtime", name)
		}
		if prev, dup := seen[name]; dup {
			return nil, errorf(mongoerr.InvalidOptions,
				"attempted to set parameter [%s] twice in the same setParameter command, once to value: [%s], and once to value: [%s]",
				name, valueString(prev), valueString(el.Value()))
		}
		seen[name] = el.Value()
		changes = append(changes, change{p, el.Value()})
	}
	if len(changes) == 0 {
		return nil, errorf(mongoerr.InvalidOptions, "no option found to set, use help:true to see options ")
	}
	out := bson.D{{Key: "was", Value: changes[0].p.Get()}}
	for _, ch := range changes {
		if err := ch.p.set(ch.v); err != nil {
			c.log.Info("error setting parameter", "parameter", ch.p.Name, "value", ch.v.String(), "error", err)
			return nil, err
		}
		c.log.Info("Successfully set parameter", "parameter", ch.p.Name, "value", ch.v.String())
	}
	return out, nil
}
