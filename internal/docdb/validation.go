package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// validator checks documents against a collection's validator during one
// write command.
type validator struct {
	e      *Engine
	meta   *catalog.CollMeta
	v      *catalog.Validation
	f      *match.Filter
	bypass bool
}

// newValidator prepares the validation of one write command on meta; $$NOW
// in the validator is the command's start.
func (e *Engine) newValidator(meta *catalog.CollMeta, bypass bool) (*validator, error) {
	val := &validator{e: e, meta: meta, v: meta.Validation, bypass: bypass}
	if val.v == nil || bypass || val.v.Level == catalog.LevelOff {
		return val, nil
	}
	f, err := match.ParseQuery(val.v.Validator, match.Env{Now: e.opts.Now()})
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
func (val *validator) check(next *stored.Doc, prev *stored.Doc) error {
	if val.f == nil {
		return nil
	}
	if prev != nil && val.v.Level == catalog.LevelModerate && !val.f.Matches(prev.Doc) {
		return nil
	}
	res, err := val.f.Eval(next.Doc)
	if err != nil {
		return err
	}
	if res.Matched {
		return nil
	}
	info := bson.D{{Key: "failingDocumentId", Value: next.Doc[0].Value}}
	if details, ok := match.ValidationDetails(val.f, next.Doc); ok {
		info = append(info, bson.E{Key: "details", Value: details})
	}
	if val.v.Action == catalog.ActionWarn {
		val.e.opts.Logger.Warn("Document would fail validation",
			"namespace", val.meta.DB+"."+val.meta.Name, "document", fmtDoc(next.Doc), "errInfo", fmtDoc(info))
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
