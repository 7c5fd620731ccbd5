package mongo

import (
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// errorf returns a client-visible error with a MongoDB code.
func errorf(code mongoerr.Code, format string, args ...any) *mongoerr.Error {
	return mongoerr.New(code, fmt.Sprintf(format, args...))
}

// asMongoError returns err as a client-visible error: a *mongoerr.Error in
// its chain as is, anything else as InternalError with its text. The second
// result is false for the latter, so that the caller can log it.
func asMongoError(err error) (*mongoerr.Error, bool) {
	if e, ok := mongoerr.As(err); ok {
		return e, true
	}
	if errors.Is(err, docdb.ErrNotPrimary) {
		return errNotPrimary(), true
	}
	return mongoerr.New(mongoerr.InternalError, err.Error()), false
}

// Contexts MongoDB adds to an error raised while a command's plan runs
// (exception.addContext in find_cmd.cpp, run_aggregate.cpp and
// getmore_cmd.cpp), not while it is parsed or planned.
const (
	findExecutorContext      = "Executor error during find command"
	aggregateExecutorContext = "PlanExecutor error during aggregation"
	getMoreExecutorContext   = "Executor error during getMore"
)

// executorError returns err, an error raised while reading a cursor's
// results, as MongoDB words it: "<context> :: caused by :: <message>",
// with the same code and extra fields. An empty context, or an error
// without a MongoDB code, is returned as is.
func executorError(context string, err error) error {
	e, ok := mongoerr.As(err)
	if !ok || context == "" {
		return err
	}
	return &mongoerr.Error{Code: e.Code, Message: context + " :: caused by :: " + e.Message, Info: e.Info}
}

// errorDoc is the reply to a failed command: {ok: 0, errmsg, code,
// codeName} followed by the error's extra fields (keyPattern and keyValue
// for DuplicateKey, errInfo for DocumentValidationFailure, ...).
func errorDoc(e *mongoerr.Error) bson.D {
	d := bson.D{
		{Key: "ok", Value: 0.0},
		{Key: "errmsg", Value: e.Message},
		{Key: "code", Value: int32(e.Code)},
		{Key: "codeName", Value: e.Code.Name()},
	}
	return appendInfo(d, e.Info)
}

// writeErrorDoc is one entry of a write command's writeErrors array:
// {index, code, errmsg} plus the error's extra fields.
func writeErrorDoc(index int, err error) bson.D {
	e, _ := asMongoError(err)
	d := bson.D{
		{Key: "index", Value: int32(index)},
		{Key: "code", Value: int32(e.Code)},
	}
	d = appendInfo(d, e.Info)
	return append(d, bson.E{Key: "errmsg", Value: e.Message})
}

// infoOrder is the order in which MongoDB writes the extra fields it knows.
var infoOrder = []string{"keyPattern", "keyValue", "collation", "errInfo"}

func appendInfo(d bson.D, info map[string]any) bson.D {
	if len(info) == 0 {
		return d
	}
	seen := 0
	for _, k := range infoOrder {
		if v, ok := info[k]; ok {
			d = append(d, bson.E{Key: k, Value: v})
			seen++
		}
	}
	if seen == len(info) {
		return d
	}
	rest := make([]string, 0, len(info)-seen)
	for k := range info {
		if !isInfoOrdered(k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		d = append(d, bson.E{Key: k, Value: info[k]})
	}
	return d
}

func isInfoOrdered(k string) bool {
	for _, o := range infoOrder {
		if o == k {
			return true
		}
	}
	return false
}
