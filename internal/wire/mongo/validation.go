package mongo

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// validationField parses el into v when it is one of the validation
// options create and collMod share (validator, validationLevel,
// validationAction); handled is false for any other field.
func validationField(v *docdb.ValidationOptions, el bson.E) (handled bool, err error) {
	switch el.Key {
	case "validator":
		d, ok := el.Value.(bson.D)
		if !ok {
			return true, errorf(mongoerr.TypeMismatch,
				"BSON field 'validator' is the wrong type '%s', expected type 'object'", valueTypeName(el.Value))
		}
		if d == nil {
			d = bson.D{}
		}
		v.Validator = d
	case "validationLevel":
		v.Level, err = validationEnum(el, "strict", "moderate", "off")
	case "validationAction":
		v.Action, err = validationEnum(el, "error", "warn")
	default:
		return false, nil
	}
	return true, err
}

// validationEnum parses a string option that takes one of allowed.
func validationEnum(el bson.E, allowed ...string) (string, error) {
	s, ok := el.Value.(string)
	if !ok {
		return "", errorf(mongoerr.TypeMismatch,
			"BSON field '%s' is the wrong type '%s', expected type 'string'", el.Key, valueTypeName(el.Value))
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", errorf(mongoerr.BadValue, "Enumeration value '%s' for field '%s' is not a valid value.", s, el.Key)
}
