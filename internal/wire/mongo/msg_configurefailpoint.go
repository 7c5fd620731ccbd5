package mongo

import (
	"bytes"
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgConfigureFailPoint answers configureFailPoint, a test command served
// only with Options.TestCommands (enableTestCommands): {configureFailPoint:
// "failCommand" | "failGetMoreAfterCursorCheckout" |
// "onPrimaryTransactionalWrite", mode: "alwaysOn" | "off" | {times: n} | {skip: n} |
// {activationProbability: p}, data: {failCommands: [...], ...}}. The reply's
// count is how many times the fail point had been activated before.
func msgConfigureFailPoint(_ context.Context, c *conn, req *request) (bson.D, error) {
	const cmd = "configureFailPoint"
	v := req.first()
	name, ok := v.StringValueOK()
	if !ok {
		return nil, typeMismatch("", cmd, v.Type, "string")
	}
	if name != "failCommand" && name != "failGetMoreAfterCursorCheckout" && name != "onPrimaryTransactionalWrite" {
		return nil, errorf(mongoerr.FailPointSetFailed, "%s not found", name)
	}
	next := failPoint{}
	modeVal, err := req.cmd.LookupErr("mode")
	if err != nil {
		return nil, errorf(mongoerr.FailPointSetFailed, "When setting a failpoint, you must supply a 'mode'")
	}
	if err := next.parseMode(modeVal); err != nil {
		return nil, err
	}
	if name != "failCommand" {
		data, _ := req.cmd.Lookup("data").DocumentOK()
		configure := c.s.getMoreFailPoint.configure
		if name == "onPrimaryTransactionalWrite" {
			configure = c.s.txnWriteFailPoint.configure
		}
		count, err := configure(&next, data)
		if err != nil {
			return nil, err
		}
		return bson.D{{Key: "count", Value: count}}, nil
	}
	if dataVal, err := req.cmd.LookupErr("data"); err == nil {
		data, ok := dataVal.DocumentOK()
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch, "the 'data' field must be an object")
		}
		if err := next.parseData(data); err != nil {
			return nil, err
		}
	}
	f := &c.s.failPoint
	f.mu.Lock()
	count := f.entered
	next.entered = count
	f.mode, f.times, f.probability = next.mode, next.times, next.probability
	f.commands, f.appName, f.hasAppName = next.commands, next.appName, next.hasAppName
	f.closeConnection, f.blockTime = next.closeConnection, next.blockTime
	f.hasErrorCode, f.errorCode = next.hasErrorCode, next.errorCode
	f.errorLabels, f.writeConcernError = next.errorLabels, next.writeConcernError
	f.mu.Unlock()
	return bson.D{{Key: "count", Value: count}}, nil
}

// parseMode reads the mode field: a string or a one-field document.
func (f *failPoint) parseMode(v bson.RawValue) error {
	if s, ok := v.StringValueOK(); ok {
		if s != "off" && s != "alwaysOn" {
			return errorf(mongoerr.FailPointSetFailed, "unknown mode: %s", s)
		}
		f.mode = s
		return nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return errorf(mongoerr.TypeMismatch, "'mode' must be a string or JSON object")
	}
	elems, _ := doc.Elements()
	if len(elems) == 0 {
		return errorf(mongoerr.FailPointSetFailed, "'mode' must be one of 'off', 'alwaysOn', 'times', and 'activationProbability'")
	}
	for _, e := range elems {
		switch key := e.Key(); key {
		case "times", "skip":
			n, ok := numberAsInt64(e.Value())
			if !ok || !isNumber(e.Value().Type) {
				return errorf(mongoerr.TypeMismatch, "'%s' must be a number", key)
			}
			if n < 0 {
				return errorf(mongoerr.BadValue, "'%s' must be >= 0", key)
			}
			f.mode, f.times = key, n
		case "activationProbability":
			p, ok := numberAsFloat(e.Value())
			if !ok || !isNumber(e.Value().Type) {
				return errorf(mongoerr.TypeMismatch, "'activationProbability' must be a number")
			}
			if p < 0 || p > 1 {
				return errorf(mongoerr.BadValue, "'activationProbability' must be between 0.0 and 1.0")
			}
			f.mode, f.probability = key, p
		default:
			return errorf(mongoerr.BadValue, "'mode' must be one of 'off', 'alwaysOn', 'times', and 'activationProbability'")
		}
	}
	if f.mode == "times" && f.times == 0 {
		f.mode = "off"
	}
	return nil
}

// parseData reads the data document of failCommand.
func (f *failPoint) parseData(data bson.Raw) error {
	var block, hasBlockMS bool
	var blockMS int64
	elems, _ := data.Elements()
	for _, e := range elems {
		v := e.Value()
		switch e.Key() {
		case "failCommands":
			arr, ok := v.ArrayOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "'failCommands' must be an array of command names")
			}
			vals, _ := arr.Values()
			for _, x := range vals {
				s, ok := x.StringValueOK()
				if !ok {
					return errorf(mongoerr.TypeMismatch, "'failCommands' must be an array of command names")
				}
				f.commands = append(f.commands, s)
			}
		case "appName":
			s, ok := v.StringValueOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "'appName' must be a string")
			}
			f.appName, f.hasAppName = s, true
		case "closeConnection":
			f.closeConnection = truthy(v)
		case "blockConnection":
			block = truthy(v)
		case "blockTimeMS":
			ms, ok := numberAsInt64(v)
			if !ok || !isNumber(v.Type) {
				return errorf(mongoerr.TypeMismatch, "'blockTimeMS' must be a number")
			}
			blockMS, hasBlockMS = ms, true
		case "errorCode":
			n, ok := numberAsInt64(v)
			if !ok || !isNumber(v.Type) {
				return errorf(mongoerr.TypeMismatch, "'errorCode' must be a number")
			}
			f.hasErrorCode, f.errorCode = true, int32(n)
		case "errorLabels":
			if v.Type != bson.TypeArray {
				return errorf(mongoerr.TypeMismatch, "'errorLabels' must be an array")
			}
			f.errorLabels = bson.RawValue{Type: v.Type, Value: bytes.Clone(v.Value)}
		case "writeConcernError":
			doc, ok := v.DocumentOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "'writeConcernError' must be an object")
			}
			f.writeConcernError = bytes.Clone(doc)
		}
	}
	if block {
		if !hasBlockMS {
			return errorf(mongoerr.InvalidOptions, "must specify 'blockTimeMS' when 'blockConnection' is true")
		}
		f.blockTime = time.Duration(blockMS) * time.Millisecond
	}
	return nil
}
