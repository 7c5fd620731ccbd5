package mongo

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgCollMod answers collMod: the options are parsed here (validator
// options, a clustered collection's expireAfterSeconds, index: {name |
// keyPattern, hidden, expireAfterSeconds}, mayfly's dryRun) and the
// document model changes them and returns the reply's fields
// (expireAfterSeconds_old/_new, hidden_old/_new).
func msgCollMod(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	cmd, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	cr, err := parseCollMod(cmd)
	if err != nil {
		return nil, err
	}
	out, err := c.s.db.CollMod(ctx, req.db, coll, cr)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = bson.D{}
	}
	return out, nil
}

// parseCollMod parses a collMod command.
func parseCollMod(cmd bson.D) (docdb.CollModRequest, error) {
	var cr docdb.CollModRequest
	err := decodedFields(cmd, func(el bson.E) error {
		if handled, err := validationField(&cr.Validation, el); handled {
			return err
		}
		if handled, err := collModCappedField(&cr, el); handled {
			return err
		}
		var err error
		switch el.Key {
		case "index":
			d, ok := el.Value.(bson.D)
			if !ok {
				return errorf(mongoerr.TypeMismatch,
					"BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", valueTypeName(el.Value))
			}
			cr.Index, err = parseCollModIndex(d)
		case "expireAfterSeconds":
			cr.ExpireAfterSeconds = collModCollectionExpiry(el.Value)
		case "dryRun":
			// mayfly's extension: validate, then preview.
			cr.DryRun, err = dryRunArg("collMod", el.Value)
		case "changeStreamPreAndPostImages":
			var on bool
			on, err = preAndPostImagesArg("collMod", el.Value)
			cr.PreAndPostImages = &on
		case "viewOn", "pipeline", "timeseries":
			err = errorf(mongoerr.NotImplemented, "collMod %s is not supported", el.Key)
		default:
			err = errorf(mongoerr.IDLUnknownField, "BSON field 'collMod.%s' is an unknown field.", el.Key)
		}
		return err
	})
	return cr, err
}

// collModCollectionExpiry parses collMod's expireAfterSeconds: "off" or a
// number of seconds. The error of any other value is the request's, for
// the document model to report once it knows the collection is clustered.
func collModCollectionExpiry(v any) *docdb.CollectionExpiry {
	if s, ok := v.(string); ok {
		if s == "off" {
			return &docdb.CollectionExpiry{Off: true}
		}
		return &docdb.CollectionExpiry{Invalid: errorf(mongoerr.InvalidOptions, "Invalid value for 'expireAfterSeconds'")}
	}
	n, err := collectionExpireAfter(v)
	return &docdb.CollectionExpiry{Seconds: n, Invalid: err}
}

// parseCollModIndex parses collMod's index argument.
func parseCollModIndex(spec bson.D) (*docdb.CollModIndex, error) {
	var ix docdb.CollModIndex
	nameV, hasName := catalog.FieldOf(spec, "name")
	keyV, hasKey := catalog.FieldOf(spec, "keyPattern")
	switch {
	case hasName && hasKey:
		return nil, errorf(mongoerr.InvalidOptions, "Cannot specify both key pattern and name.")
	case !hasName && !hasKey:
		return nil, errorf(mongoerr.InvalidOptions, "Must specify either index name or key pattern.")
	}
	if err := collModIndexFields(spec); err != nil {
		return nil, err
	}
	if hasName {
		name, ok := nameV.(string)
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.name' is the wrong type '%s', expected type 'string'", valueTypeName(nameV))
		}
		ix.Name = name
	} else {
		key, ok := keyV.(bson.D)
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.keyPattern' is the wrong type '%s', expected type 'object'", valueTypeName(keyV))
		}
		if key == nil {
			key = bson.D{}
		}
		ix.KeyPattern = key
	}
	if v, ok := catalog.FieldOf(spec, "hidden"); ok {
		hidden, ok := v.(bool)
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch,
				"BSON field 'collMod.index.hidden' is the wrong type '%s', expected type 'bool'", valueTypeName(v))
		}
		ix.Hidden = &hidden
	}
	if v, ok := catalog.FieldOf(spec, "expireAfterSeconds"); ok {
		n, err := collModIndexExpireAfter(v)
		if err != nil {
			return nil, err
		}
		ix.ExpireAfterSeconds = &n
	}
	return &ix, nil
}

// collModIndexFields refuses the index options collMod does not support
// or know, and an index argument that changes nothing.
func collModIndexFields(spec bson.D) error {
	for _, f := range []string{"unique", "prepareUnique", "forceNonUnique"} {
		if _, ok := catalog.FieldOf(spec, f); ok {
			return errorf(mongoerr.NotImplemented, "collMod index %s is not supported", f)
		}
	}
	change := false
	for _, e := range spec {
		switch e.Key {
		case "name", "keyPattern":
		case "expireAfterSeconds", "hidden":
			change = true
		default:
			return errorf(mongoerr.IDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", e.Key)
		}
	}
	if !change {
		return errorf(mongoerr.InvalidOptions, "no expireAfterSeconds, hidden, unique, or prepareUnique field")
	}
	return nil
}

// collModIndexExpireAfter checks collMod's index expireAfterSeconds.
func collModIndexExpireAfter(v any) (int64, error) {
	if !catalog.IsNumber(v) {
		return 0, errorf(mongoerr.TypeMismatch,
			"BSON field 'collMod.index.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", valueTypeName(v))
	}
	f, _ := catalog.ToFloat(v)
	if math.IsNaN(f) {
		return 0, errorf(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
	}
	if f < 0 {
		return 0, errorf(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if f > math.MaxInt32 {
		return 0, errorf(mongoerr.InvalidOptions,
			"TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (2147483647) for secondary indexes, found %s", fmtNumber(v))
	}
	return int64(f), nil
}

// dryRunArg parses a command's dryRun field (mayfly's extension): a bool,
// or a number as MongoDB's IDL safeBool accepts.
func dryRunArg(cmd string, v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	if catalog.IsNumber(v) {
		return catalog.Truthy(v), nil
	}
	return false, errorf(mongoerr.TypeMismatch,
		"BSON field '%s.dryRun' is the wrong type '%s', expected type 'bool'", cmd, valueTypeName(v))
}
