package mongo

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// failGetMoreMessage is the errmsg of a getMore failed by the
// failGetMoreAfterCursorCheckout fail point.
const failGetMoreMessage = "Hit the 'failGetMoreAfterCursorCheckout' failpoint"

// getMoreFailPoint is MongoDB's failGetMoreAfterCursorCheckout fail point,
// set by configureFailPoint (a test command): while it is on, a getMore
// that found its cursor fails with data's errorCode (InternalError without
// one) and the cursor is killed, as an error while a cursor is checked out
// kills it. Unlike failCommand's, the error is the server's own, so a change
// stream's getMore gets ResumableChangeStreamError when the code is one a
// stream resumes after.
type getMoreFailPoint struct {
	mu sync.Mutex
	// mode is "off", "alwaysOn", "times", "skip" or "activationProbability";
	// times and entered are as in failPoint.
	mode      string
	times     int64
	entered   int64
	errorCode int32
}

// configure sets the fail point from configureFailPoint's parsed mode and
// its data document, and returns the activations so far.
func (f *getMoreFailPoint) configure(mode *failPoint, data bson.Raw) (int64, error) {
	code := int32(mongoerr.InternalError)
	if data != nil {
		if v, err := data.LookupErr("errorCode"); err == nil {
			n, ok := numberAsInt64(v)
			if !ok || !isNumber(v.Type) {
				return 0, errorf(mongoerr.TypeMismatch, "'errorCode' must be a number")
			}
			code = int32(n)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	count := f.entered
	f.mode, f.times, f.errorCode = mode.mode, mode.times, code
	return count, nil
}

// activate reports the error a checked-out getMore fails with, counting
// the activation, or nil while the fail point is off.
func (f *getMoreFailPoint) activate() *mongoerr.Error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.mode {
	case "times":
		if f.times <= 0 {
			return nil
		}
		f.times--
		if f.times == 0 {
			f.mode = "off"
		}
	case "skip":
		if f.times > 0 {
			f.times--
			return nil
		}
	case "alwaysOn", "activationProbability":
	default:
		return nil
	}
	f.entered++
	return mongoerr.New(mongoerr.Code(f.errorCode), failGetMoreMessage)
}

// failCheckedOutGetMore applies the failGetMoreAfterCursorCheckout fail
// point to cursor cur, just checked out by getMore: when it fires, the
// cursor is killed and the error returned, labelled for a change stream.
func (c *conn) failCheckedOutGetMore(cur *cursor) error {
	if !c.s.opts.TestCommands {
		return nil
	}
	e := c.s.getMoreFailPoint.activate()
	if e == nil {
		return nil
	}
	c.s.cursors.remove(cur)
	if _, ok := cur.src.(*streamCursor); ok && resumableChangeStreamCode(e.Code) {
		return withLabels(e, labelResumableChangeStream)
	}
	return e
}
