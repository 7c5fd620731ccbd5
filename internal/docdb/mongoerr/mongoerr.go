// Package mongoerr classifies the errors of the document model by MongoDB's
// error codes. The model (docdb and its sub-packages) returns *Error values;
// only the wire edge (internal/wire/mongo) turns them into replies with code,
// codeName and errmsg.
package mongoerr

import (
	"errors"
	"fmt"
)

// Code is a MongoDB error code. The values are MongoDB's own, so that the
// wire edge can report them unchanged.
type Code int32

// The MongoDB error codes the document model uses.
const (
	InternalError                   Code = 1
	BadValue                        Code = 2
	NoSuchKey                       Code = 4
	Unauthorized                    Code = 13
	FailedToParse                   Code = 9
	TypeMismatch                    Code = 14
	InvalidLength                   Code = 16
	IllegalOperation                Code = 20
	EmptyArrayOperation             Code = 21
	NamespaceNotFound               Code = 26
	IndexNotFound                   Code = 27
	PathNotViable                   Code = 28
	ConflictingUpdateOperators      Code = 40
	CursorNotFound                  Code = 43
	NamespaceExists                 Code = 48
	MaxTimeMSExpired                Code = 50
	DollarPrefixedFieldName         Code = 52
	InvalidIdField                  Code = 53
	NotSingleValueField             Code = 54
	CommandNotFound                 Code = 59
	ImmutableField                  Code = 66
	CannotCreateIndex               Code = 67
	IndexAlreadyExists              Code = 68
	InvalidOptions                  Code = 72
	InvalidNamespace                Code = 73
	IndexOptionsConflict            Code = 85
	IndexKeySpecsConflict           Code = 86
	CannotIndexParallelArrays       Code = 171
	InvalidIndexSpecificationOption Code = 197
	DocumentValidationFailure       Code = 121
	NotImplemented                  Code = 238
	QueryFeatureNotAllowed          Code = 224
	Location15974                   Code = 15974
	DuplicateKey                    Code = 11000
	OperationFailed                 Code = 96
	InvalidPipelineOperator         Code = 168
	CommandNotSupported             Code = 115
	BSONObjectTooLarge              Code = 10334
	NoQueryExecutionPlans           Code = 291
	AmbiguousIndexKeyPattern        Code = 181
	Location16555                   Code = 16555
	Location40352                   Code = 40352
	Location31254                   Code = 31254
	Location40353                   Code = 40353
	EmptyFieldName                  Code = 56
	ConversionFailure               Code = 241
	NoReplicationEnabled            Code = 76
	Location40573                   Code = 40573
	QueryExceededMemoryLimit        Code = 292
	Interrupted                     Code = 11601
	Overflow                        Code = 15
)

var names = map[Code]string{
	InternalError:                   "InternalError",
	BadValue:                        "BadValue",
	NoSuchKey:                       "NoSuchKey",
	Unauthorized:                    "Unauthorized",
	FailedToParse:                   "FailedToParse",
	TypeMismatch:                    "TypeMismatch",
	InvalidLength:                   "InvalidLength",
	IllegalOperation:                "IllegalOperation",
	EmptyArrayOperation:             "EmptyArrayOperation",
	NamespaceNotFound:               "NamespaceNotFound",
	IndexNotFound:                   "IndexNotFound",
	PathNotViable:                   "PathNotViable",
	ConflictingUpdateOperators:      "ConflictingUpdateOperators",
	CursorNotFound:                  "CursorNotFound",
	NamespaceExists:                 "NamespaceExists",
	MaxTimeMSExpired:                "MaxTimeMSExpired",
	DollarPrefixedFieldName:         "DollarPrefixedFieldName",
	InvalidIdField:                  "InvalidIdField",
	NotSingleValueField:             "NotSingleValueField",
	CommandNotFound:                 "CommandNotFound",
	ImmutableField:                  "ImmutableField",
	CannotCreateIndex:               "CannotCreateIndex",
	IndexAlreadyExists:              "IndexAlreadyExists",
	InvalidOptions:                  "InvalidOptions",
	InvalidNamespace:                "InvalidNamespace",
	IndexOptionsConflict:            "IndexOptionsConflict",
	IndexKeySpecsConflict:           "IndexKeySpecsConflict",
	CannotIndexParallelArrays:       "CannotIndexParallelArrays",
	InvalidIndexSpecificationOption: "InvalidIndexSpecificationOption",
	DocumentValidationFailure:       "DocumentValidationFailure",
	NotImplemented:                  "NotImplemented",
	QueryFeatureNotAllowed:          "QueryFeatureNotAllowed",
	DuplicateKey:                    "DuplicateKey",
	OperationFailed:                 "OperationFailed",
	InvalidPipelineOperator:         "InvalidPipelineOperator",
	CommandNotSupported:             "CommandNotSupported",
	BSONObjectTooLarge:              "BSONObjectTooLarge",
	NoQueryExecutionPlans:           "NoQueryExecutionPlans",
	AmbiguousIndexKeyPattern:        "AmbiguousIndexKeyPattern",
	EmptyFieldName:                  "EmptyFieldName",
	ConversionFailure:               "ConversionFailure",
	NoReplicationEnabled:            "NoReplicationEnabled",
	QueryExceededMemoryLimit:        "QueryExceededMemoryLimitNoDiskUseAllowed",
	Interrupted:                     "Interrupted",
	Overflow:                        "Overflow",
}

// Name returns MongoDB's codeName for c. Codes MongoDB reports as plain
// locations (such as 15974) have the name "Location<code>".
func (c Code) Name() string {
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is an error of the document model with a MongoDB code.
type Error struct {
	Code    Code
	Message string
	// Info holds extra reply fields for errors that carry them, such as
	// keyPattern and keyValue for DuplicateKey or errInfo for
	// DocumentValidationFailure. Its values are BSON-encodable.
	Info map[string]any
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// New returns an error with the given code and message.
func New(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Newf returns an error with the given code and a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// CodeOf returns the code of the *Error in err's chain, or InternalError.
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	return InternalError
}
