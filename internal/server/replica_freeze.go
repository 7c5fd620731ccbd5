package server

import (
	"context"
	"errors"
	"time"

	"github.com/mayfly/mayfly/internal/replica"
	"github.com/mayfly/mayfly/internal/wire/mongo"
)

// Freeze serves replSetFreeze on this member.
func (v mongoView) Freeze(d time.Duration) (bool, error) {
	n := v.r.node.Load()
	if n == nil {
		return false, mongo.ErrNotSecondary
	}
	unfrozen, err := n.Freeze(d)
	if errors.Is(err, replica.ErrNotFollower) {
		return false, errors.Join(mongo.ErrNotSecondary, err)
	}
	return unfrozen, err
}

// StepDownFor serves replSetStepDown on this member.
func (v mongoView) StepDownFor(ctx context.Context, freezeFor, catchUp time.Duration, force bool) error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	err := n.StepDownFor(ctx, freezeFor, catchUp, force)
	if errors.Is(err, replica.ErrNoCaughtUp) {
		return errors.Join(mongo.ErrNoCaughtUp, err)
	}
	return err
}
