package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Validation levels and actions, as MongoDB spells them.
const (
	levelStrict   = "strict"
	levelModerate = "moderate"
	levelOff      = "off"
	actionError   = "error"
	actionWarn    = "warn"
)

// validation is a collection's schema validation settings.
type validation struct {
	validator bson.D // nil or empty: no validation
	level     string
	action    string
}

// parseValidationOptions reads validator, validationLevel and
// validationAction from collection options (checked by the wire layer when
// the command gave them) and parses the validator. It returns nil when the
// collection has no validator.
func parseValidationOptions(opts bson.D) (*validation, error) {
	v := &validation{level: levelStrict, action: actionError}
	for _, e := range opts {
		switch e.Key {
		case "validator":
			v.validator, _ = e.Value.(bson.D)
		case "validationLevel":
			if s, ok := e.Value.(string); ok {
				v.level = s
			}
		case "validationAction":
			if s, ok := e.Value.(string); ok {
				v.action = s
			}
		}
	}
	if len(v.validator) == 0 {
		return nil, nil
	}
	if err := checkValidator(v.validator); err != nil {
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
	_, err := parseQuery(d, exprEnv{})
	return err
}

// validator checks documents against a collection's validator during one
// write command.
type validator struct {
	e      *Engine
	meta   *collMeta
	v      *validation
	f      *filter
	bypass bool
}

// newValidator prepares the validation of one write command on meta; $$NOW
// in the validator is the command's start.
func (e *Engine) newValidator(meta *collMeta, bypass bool) (*validator, error) {
	val := &validator{e: e, meta: meta, v: meta.validation, bypass: bypass}
	if val.v == nil || bypass || val.v.level == levelOff {
		return val, nil
	}
	f, err := parseQuery(val.v.validator, exprEnv{now: e.opts.Now()})
	if err != nil {
		return nil, err
	}
	val.f = f
	return val, nil
}

// check validates next, the new version of a document; prev is the old
// version for updates (nil for inserts). Under validationLevel moderate an
// update of a document that was already invalid is not checked. With
// validationAction warn a failure is logged and the write proceeds.
func (val *validator) check(next *storedDoc, prev *storedDoc) error {
	if val.f == nil {
		return nil
	}
	if prev != nil && val.v.level == levelModerate && !val.f.matches(prev.doc) {
		return nil
	}
	res, err := val.f.eval(next.doc)
	if err != nil {
		return err
	}
	if res.Matched {
		return nil
	}
	info := bson.D{{Key: "failingDocumentId", Value: next.doc[0].Value}}
	if details, ok := validationDetails(val.f, next.doc); ok {
		info = append(info, bson.E{Key: "details", Value: details})
	}
	if val.v.action == actionWarn {
		val.e.opts.Logger.Warn("Document would fail validation",
			"namespace", val.meta.db+"."+val.meta.name, "document", fmtDoc(next.doc), "errInfo", fmtDoc(info))
		return nil
	}
	return &mongoerr.Error{
		Code:    mongoerr.DocumentValidationFailure,
		Message: "Document failed validation",
		Info:    map[string]any{"errInfo": info},
	}
}

// appendTo appends the options v gives to opts, as collection options.
func (v ValidationOptions) appendTo(opts bson.D) bson.D {
	if v.Validator != nil {
		opts = append(opts, bson.E{Key: "validator", Value: v.Validator})
	}
	if v.Level != "" {
		opts = append(opts, bson.E{Key: "validationLevel", Value: v.Level})
	}
	if v.Action != "" {
		opts = append(opts, bson.E{Key: "validationAction", Value: v.Action})
	}
	return opts
}

// replaceIn returns opts with the options v gives replaced: each one given
// is removed from opts and appended.
func (v ValidationOptions) replaceIn(opts bson.D) bson.D {
	if v.Validator != nil {
		opts = withoutField(opts, "validator")
	}
	if v.Level != "" {
		opts = withoutField(opts, "validationLevel")
	}
	if v.Action != "" {
		opts = withoutField(opts, "validationAction")
	}
	return v.appendTo(opts)
}

// given reports whether v gives any option.
func (v ValidationOptions) given() bool {
	return v.Validator != nil || v.Level != "" || v.Action != ""
}
