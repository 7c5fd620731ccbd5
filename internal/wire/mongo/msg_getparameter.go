package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgGetParameter answers getParameter. {getParameter: 1, name: 1, ...}
// returns the named parameters, {getParameter: "*"} every one, and
// {getParameter: {showDetails: true, allParameters: true}} adds whether
// each can be set at startup and at runtime. No parameter found is
// InvalidOptions, as in MongoDB.
func msgGetParameter(_ context.Context, c *conn, req *request) (bson.D, error) {
	all, details := false, false
	switch v := req.first(); v.Type {
	case bson.TypeString:
		all = v.StringValue() == "*"
	case bson.TypeEmbeddedDocument:
		elems, err := v.Document().Elements()
		if err != nil {
			return nil, errorf(mongoerr.InvalidBSON, "invalid getParameter argument: %v", err)
		}
		for _, el := range elems {
			switch el.Key() {
			case "showDetails":
				b, err := boolArg("getParameter", el)
				if err != nil {
					return nil, err
				}
				details = b
			case "allParameters":
				b, err := boolArg("getParameter", el)
				if err != nil {
					return nil, err
				}
				all = b
			default:
				return nil, unknownField("getParameter", el.Key())
			}
		}
	}
	var want map[string]bool
	if !all {
		elems, err := req.cmd.Elements()
		if err != nil {
			return nil, errorf(mongoerr.InvalidBSON, "invalid command: %v", err)
		}
		want = map[string]bool{}
		for _, el := range elems[1:] {
			if !genericArgs[el.Key()] {
				want[el.Key()] = true
			}
		}
	}
	var out bson.D
	for i := range c.s.params.params {
		p := &c.s.params.params[i]
		if !all && !want[p.Name] {
			continue
		}
		var v any = p.Get()
		if details {
			v = bson.D{
				{Key: "value", Value: v},
				{Key: "settableAtRuntime", Value: p.Set != nil},
				{Key: "settableAtStartup", Value: p.StartupOnly || p.Set != nil},
			}
		}
		out = append(out, bson.E{Key: p.Name, Value: v})
	}
	if len(out) == 0 {
		return nil, errorf(mongoerr.InvalidOptions, "no option found to get")
	}
	return out, nil
}
