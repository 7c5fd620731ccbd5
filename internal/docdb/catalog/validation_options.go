package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Validation levels and actions, as MongoDB spells them.
const (
	levelStrict   = "strict"
	LevelModerate = "moderate"
	LevelOff      = "off"
	actionError   = "error"
	ActionWarn    = "warn"
)

// Validation is a collection's schema validation settings.
type Validation struct {
	Validator bson.D // nil or empty: no validation
	Level     string
	Action    string
}

// ParseValidationOptions reads validator, validationLevel and
// validationAction from collection options. It returns nil when the
// collection has no validator.
func ParseValidationOptions(opts bson.D) (*Validation, error) {
	v := &Validation{Level: levelStrict, Action: actionError}
	has := false
	for _, e := range opts {
		switch e.Key {
		case "validator":
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch,
					"BSON field 'validator' is the wrong type '%s', expected type 'object'", aggregate.TypeName(e.Value))
			}
			v.Validator = d
			has = len(d) > 0
		case "validationLevel":
			s, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch,
					"BSON field 'validationLevel' is the wrong type '%s', expected type 'string'", aggregate.TypeName(e.Value))
			}
			if s != levelStrict && s != LevelModerate && s != LevelOff {
				return nil, mongoerr.Newf(mongoerr.BadValue,
					"Enumeration value '%s' for field 'validationLevel' is not a valid value.", s)
			}
			v.Level = s
		case "validationAction":
			s, ok := e.Value.(string)
			if !ok {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch,
					"BSON field 'validationAction' is the wrong type '%s', expected type 'string'", aggregate.TypeName(e.Value))
			}
			if s != actionError && s != ActionWarn {
				return nil, mongoerr.Newf(mongoerr.BadValue,
					"Enumeration value '%s' for field 'validationAction' is not a valid value.", s)
			}
			v.Action = s
		}
	}
	if !has {
		return nil, nil
	}
	if err := checkValidator(v.Validator); err != nil {
		return nil, err
	}
	return v, nil
}

// checkValidator parses a validator to report its errors at create and
// collMod time; operators that make no sense in a validator are refused as
// MongoDB refuses them.
func checkValidator(d bson.D) error {
	for _, e := range d {
		switch e.Key {
		case "$where", "$near", "$nearSphere", "$text", "$geoNear":
			return mongoerr.Newf(mongoerr.QueryFeatureNotAllowed, "%s is not allowed in collection validators", e.Key)
		}
	}
	_, err := match.ParseQuery(d, match.Env{})
	return err
}
