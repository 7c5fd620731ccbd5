package mongo

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Capped collections at the wire: create's capped, size and max, collMod's
// cappedSize and cappedMax, and the size of cloneCollectionAsCapped and
// convertToCapped (msg_clonecollectionascapped.go, msg_converttocapped.go).
// The checks run in MongoDB 7.0's order: the IDL's types and ranges first
// (a null is "not given"), then the rules tying the fields together.

// cappedArgs are create's capped, size and max as given.
type cappedArgs struct {
	capped    bool
	size, max *int64
}

// field takes el when it is one of the capped fields.
func (a *cappedArgs) field(cmd string, el bson.E) (bool, error) {
	switch el.Key {
	case "capped":
		if isNullish(el.Value) {
			return true, nil
		}
		if _, ok := el.Value.(bool); !ok && !catalog.IsNumber(el.Value) {
			return true, errorf(mongoerr.TypeMismatch,
				"BSON field '%s.capped' is the wrong type '%s', expected types '[bool, long, int, decimal, double']", cmd, valueTypeName(el.Value))
		}
		a.capped = catalog.Truthy(el.Value)
	case "size":
		n, given, err := cappedSizeArg(cmd, "size", el.Value)
		if given {
			a.size = &n
		}
		return true, err
	case "max":
		n, given, err := cappedMaxArg(cmd, "max", el.Value)
		if given {
			a.max = &n
		}
		return true, err
	default:
		return false, nil
	}
	return true, nil
}

// options checks the fields together and returns the capped options of a
// create (nil for an ordinary collection).
func (a *cappedArgs) options(clustered bool) (*docdb.CappedOptions, error) {
	if clustered {
		if a.capped {
			return nil, errorf(mongoerr.Location6127800,
				"Clustered capped collection only available with 'enableTestCommands' server parameter")
		}
		return nil, nil
	}
	if a.capped && a.size == nil {
		return nil, errorf(mongoerr.InvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	if (a.size != nil || a.max != nil) && !a.capped {
		return nil, errorf(mongoerr.InvalidOptions,
			"the 'capped' field needs to be true when either the 'size' or 'max' fields are present")
	}
	if !a.capped {
		return nil, nil
	}
	o := &docdb.CappedOptions{Size: *a.size}
	if a.max != nil {
		o.Max = catalog.AdjustCappedMax(*a.max)
	}
	return o, nil
}

// isNullish reports a null or undefined value, which the IDL treats as
// absent.
func isNullish(v any) bool {
	switch v.(type) {
	case nil, bson.Null, bson.Undefined:
		return true
	}
	return false
}

// safeInt64 converts a number as the IDL's safeInt64 does: a fraction is
// truncated, NaN is 0 and out-of-range values saturate.
func safeInt64(v any) int64 {
	if n, ok := catalog.ToInt64(v); ok {
		return n
	}
	f, _ := catalog.ToFloat(v)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// cappedSizeArg checks a capped size (create's size, collMod's
// cappedSize, convertToCapped's size): a number in [1, 1 PB].
func cappedSizeArg(cmd, field string, v any) (n int64, given bool, err error) {
	if isNullish(v) {
		return 0, false, nil
	}
	if !catalog.IsNumber(v) {
		return 0, false, errorf(mongoerr.TypeMismatch,
			"BSON field '%s.%s' is the wrong type '%s', expected types '%s", cmd, field, valueTypeName(v), numberTypes)
	}
	n = safeInt64(v)
	if n < 1 {
		return 0, false, errorf(mongoerr.Location51024, "BSON field '%s' value must be >= 1, actual value '%d'", field, n)
	}
	if n > catalog.CappedMaxSizeCeiling {
		return 0, false, errorf(mongoerr.Location51024, "BSON field '%s' value must be <= %d, actual value '%d'", field, int64(catalog.CappedMaxSizeCeiling), n)
	}
	return n, true, nil
}

// cappedMaxArg checks a capped document bound (create's max, collMod's
// cappedMax): a number below 2^31; 0 or less means no bound.
func cappedMaxArg(cmd, field string, v any) (n int64, given bool, err error) {
	if isNullish(v) {
		return 0, false, nil
	}
	if !catalog.IsNumber(v) {
		return 0, false, errorf(mongoerr.TypeMismatch,
			"BSON field '%s.%s' is the wrong type '%s', expected types '%s", cmd, field, valueTypeName(v), numberTypes)
	}
	n = safeInt64(v)
	if n >= 1<<31 {
		return 0, false, errorf(mongoerr.Location51024, "BSON field '%s' value must be < 2147483648, actual value '%d'", field, n)
	}
	return n, true, nil
}

// collModCappedField takes collMod's cappedSize or cappedMax.
func collModCappedField(req *docdb.CollModRequest, el bson.E) (bool, error) {
	switch el.Key {
	case "cappedSize":
		n, given, err := cappedSizeArg("collMod", "cappedSize", el.Value)
		if given {
			req.CappedSize = &n
		}
		return true, err
	case "cappedMax":
		n, given, err := cappedMaxArg("collMod", "cappedMax", el.Value)
		if given {
			req.CappedMax = &n
		}
		return true, err
	}
	return false, nil
}
