package mongo

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// failCommandMessage is the errmsg of a command failed by the failCommand
// fail point.
const failCommandMessage = "Failing command via 'failCommand' failpoint"

// failPoint is MongoDB's failCommand fail point, set by configureFailPoint
// (a test command). While it is on, a command named in failCommands, from a
// client whose hello metadata names appName when one is given, is failed:
// it first blocks for blockTimeMS (blockConnection), then the connection is
// closed without a reply (closeConnection), or the command fails with
// errorCode; with writeConcernError the command runs and its reply carries
// that error. errorLabels replace the reply's labels. Each command it
// matches counts as one activation for the times and skip modes.
type failPoint struct {
	mu sync.Mutex
	// mode is "off", "alwaysOn", "times", "skip" or "activationProbability".
	mode        string
	times       int64   // activations left (times) or matches to let pass (skip)
	probability float64 // activationProbability
	entered     int64   // activations so far, configureFailPoint's count

	commands          []string
	appName           string
	hasAppName        bool
	closeConnection   bool
	blockTime         time.Duration
	hasErrorCode      bool
	errorCode         int32
	errorLabels       bson.RawValue
	writeConcernError bson.Raw
}

// failAction is what the fail point does to one command.
type failAction struct {
	block             time.Duration
	closeConnection   bool
	err               *mongoerr.Error
	writeConcernError bson.Raw
	errorLabels       bson.RawValue
}

// activate reports what the fail point does to command name from a client
// named appName, counting the activation; ok is false when it does nothing.
func (f *failPoint) activate(name, appName string) (failAction, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mode == "" || f.mode == "off" || name == "configureFailPoint" || !slices.Contains(f.commands, name) {
		return failAction{}, false
	}
	if f.hasAppName && f.appName != appName {
		return failAction{}, false
	}
	switch f.mode {
	case "times":
		if f.times <= 0 {
			return failAction{}, false
		}
		f.times--
		if f.times == 0 {
			f.mode = "off"
		}
	case "skip":
		if f.times > 0 {
			f.times--
			return failAction{}, false
		}
	case "activationProbability":
		if rand.Float64() >= f.probability {
			return failAction{}, false
		}
	}
	f.entered++
	a := failAction{
		block:             f.blockTime,
		closeConnection:   f.closeConnection,
		writeConcernError: f.writeConcernError,
		errorLabels:       f.errorLabels,
	}
	if f.hasErrorCode {
		a.err = mongoerr.New(mongoerr.Code(f.errorCode), failCommandMessage)
		if f.errorLabels.Type == bson.TypeArray {
			a.err.Info = map[string]any{"errorLabels": f.errorLabels}
		}
	}
	return a, true
}

// applyFailPoint runs the fail point's action for req before the command:
// it blocks, closes the connection or fails the command. It returns the
// action, whose writeConcernError the caller adds to the command's reply.
func (c *conn) applyFailPoint(ctx context.Context, req *request) (failAction, error) {
	if !c.s.opts.TestCommands {
		return failAction{}, nil
	}
	a, ok := c.s.failPoint.activate(req.name, c.appName(req))
	if !ok {
		return failAction{}, nil
	}
	if a.block > 0 {
		t := time.NewTimer(a.block)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return a, ctx.Err()
		}
	}
	if a.closeConnection {
		c.nc.Close()
		return a, errorf(mongoerr.Location50985, "Failing command due to 'failCommand' failpoint")
	}
	if a.err != nil {
		return a, a.err
	}
	return a, nil
}

// withWriteConcernError adds the fail point's writeConcernError (and its
// errorLabels) to a command's successful reply.
func (a failAction) withWriteConcernError(out bson.D) bson.D {
	if a.writeConcernError == nil {
		return out
	}
	out = append(out, bson.E{Key: "writeConcernError", Value: a.writeConcernError})
	if a.errorLabels.Type == bson.TypeArray {
		out = append(out, bson.E{Key: "errorLabels", Value: a.errorLabels})
	}
	return out
}

// appName is the application name of the client's hello metadata, or "":
// the connection's, or for its first hello the one it sends.
func (c *conn) appName(req *request) string {
	meta := c.metadata()
	if meta == nil {
		doc, ok := req.cmd.Lookup("client").DocumentOK()
		if !ok {
			return ""
		}
		meta = doc
	}
	v, err := meta.LookupErr("application", "name")
	if err != nil {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}
