package server

import (
	"context"

	"github.com/mayfly/mayfly/internal/replica"
)

// WaitDurable serves writeConcern j: true on this member.
func (v mongoView) WaitDurable(ctx context.Context) error {
	n := v.r.node.Load()
	if n == nil {
		return replica.ErrNotPrimary
	}
	return n.WaitDurable(ctx, n.AppliedIndex())
}
