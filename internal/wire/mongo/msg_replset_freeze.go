package mongo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// ReplicaFreezer is what a replica set member offers for replSetFreeze and
// replSetStepDown's periods.
type ReplicaFreezer interface {
	// Freeze keeps this member, a secondary, from becoming primary for d;
	// d <= 0 lifts the freeze and unfrozen is then true. It returns
	// ErrNotSecondary on the primary or a member running for election.
	Freeze(d time.Duration) (unfrozen bool, err error)
	// StepDownFor makes the primary hand its role to a member caught up
	// within catchUp and stay frozen for freezeFor; ErrNoCaughtUp when no
	// member caught up and force is false.
	StepDownFor(ctx context.Context, freezeFor, catchUp time.Duration, force bool) error
}

// ErrNotSecondary and ErrNoCaughtUp are the errors a ReplicaFreezer
// returns, which the commands answer as MongoDB does.
var (
	ErrNotSecondary = errors.New("mongo: the member is primary or running for election")
	ErrNoCaughtUp   = errors.New("mongo: no electable secondary caught up")
)

// Defaults of replSetStepDown, as MongoDB's.
const (
	defaultStepDownSecs  = 60
	defaultCatchUpSecs   = 10
	stepDownCatchUpField = "secondaryCatchUpPeriodSecs"
)

// msgReplSetFreeze answers replSetFreeze: {replSetFreeze: N} keeps this
// secondary from becoming primary for N seconds, 0 lifts the freeze.
func msgReplSetFreeze(c *conn, rs ReplicaSet, req *request) (bson.D, error) {
	fr, ok := rs.(ReplicaFreezer)
	if !ok {
		return nil, errorf(mongoerr.CommandNotSupported, "replSetFreeze is not supported by this member")
	}
	var secs int64
	if f, ok := numberAsFloat(req.cmd.Index(0).Value()); ok {
		secs = int64(f)
	}
	unfrozen, err := fr.Freeze(time.Duration(secs) * time.Second)
	if errors.Is(err, ErrNotSecondary) {
		state := "Running-Election"
		if rs.Writable() {
			state = "Primary"
		}
		return nil, errorf(mongoerr.NotSecondary, "cannot freeze node when primary or running for election. state: %s", state)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case unfrozen:
		return bson.D{{Key: "info", Value: "unfreezing"}}, nil
	case secs == 1:
		return bson.D{{Key: "warning", Value: "you really want to freeze for only 1 second?"}}, nil
	}
	return bson.D{}, nil
}

// msgReplSetStepDown answers replSetStepDown: {replSetStepDown: N,
// secondaryCatchUpPeriodSecs: M, force: bool} waits up to M seconds (10,
// or 0 with force) for a secondary to catch up, hands it the primary role
// and stays frozen for N seconds (60 when 0 or absent).
func msgReplSetStepDown(ctx context.Context, c *conn, rs ReplicaSet, v ReplSetView, req *request) (bson.D, error) {
	force := false
	if fv, err := req.cmd.LookupErr("force"); err == nil {
		force = truthy(fv)
	}
	var stepDownSecs int64
	if f, ok := numberAsFloat(req.cmd.Index(0).Value()); ok {
		stepDownSecs = int64(f)
	}
	if stepDownSecs == 0 {
		stepDownSecs = defaultStepDownSecs
	} else if stepDownSecs < 0 {
		return nil, errorf(mongoerr.BadValue, "stepdown period must be a positive integer")
	}
	catchUp := int64(defaultCatchUpSecs)
	if force {
		catchUp = 0
	}
	if el, err := req.cmd.LookupErr(stepDownCatchUpField); err == nil {
		n, ok := numberAsFloat(el)
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch, "Expected field \"%s\" to have numeric type, but found %s", stepDownCatchUpField, typeName(el.Type))
		}
		catchUp = int64(n)
	}
	if catchUp < 0 {
		return nil, errorf(mongoerr.BadValue, "secondaryCatchUpPeriodSecs period must be a positive or absent")
	}
	if stepDownSecs < catchUp {
		return nil, errorf(mongoerr.BadValue, "stepdown period must be longer than secondaryCatchUpPeriodSecs")
	}
	if !v.IsPrimary {
		return nil, errorf(mongoerr.NotWritablePrimary, "not primary so can't step down")
	}
	var err error
	if fr, ok := rs.(ReplicaFreezer); ok {
		err = fr.StepDownFor(ctx, time.Duration(stepDownSecs)*time.Second, time.Duration(catchUp)*time.Second, force)
	} else {
		err = rs.StepDown()
	}
	if errors.Is(err, ErrNoCaughtUp) {
		return nil, errorf(mongoerr.ExceededTimeLimit, "No electable secondaries caught up as of %s. Please use the replSetStepDown command with the argument {force: true} to force node to step down.", c.s.now().UTC().Format(time.RFC3339))
	}
	if err != nil {
		return nil, errorf(mongoerr.ExceededTimeLimit, "No electable secondaries caught up as of %s: %v", c.s.now().UTC().Format(time.RFC3339), err)
	}
	return bson.D{}, nil
}
