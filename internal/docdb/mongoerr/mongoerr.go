// Package mongoerr classifies the errors of the document model by MongoDB's
// error codes. The model (docdb and its sub-packages) returns *Error values;
// only the wire edge (internal/wire/mongo) turns them into replies with code,
// codeName and errmsg.
//
// codes.go names every code: it is generated (go generate, ./gen) from
// error_codes.yml, MongoDB's list of named codes, and location_codes.yml,
// the assert locations mayfly reports, whose names are Location<code>. Add a
// new assert location to location_codes.yml and regenerate; never write a
// code as a number (internal/lint checks it).
package mongoerr

import (
	"errors"
	"fmt"
)

//go:generate go run ./gen

// Code is a MongoDB error code. The values are MongoDB's own, so that the
// wire edge can report them unchanged; codes.go names every one of them.
// Code in the document model and at the wire edge uses these names, never a
// number.
type Code int32

// Name returns MongoDB's codeName for c, as drivers see it in a reply: the
// name error_codes.yml gives it, or "Location<code>" for any other code
// (MongoDB's assert locations).
func (c Code) Name() string {
	if n, ok := knownName(c); ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// String returns c's codeName.
func (c Code) String() string { return c.Name() }

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
