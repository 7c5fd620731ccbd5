package docdb

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// The TTL policy API, as the admin HTTP API calls it; the policies
// themselves are the policy manager's.

// ListPolicies returns every policy, disabled ones included, sorted by
// collection group.
func (e *Engine) ListPolicies(ctx context.Context) ([]policy.Policy, error) {
	return e.pol.ListPolicies(ctx)
}

// GetPolicy returns the policy of a collection group, or an error wrapping
// ErrPolicyNotFound.
func (e *Engine) GetPolicy(ctx context.Context, group string) (policy.Policy, error) {
	return e.pol.GetPolicy(ctx, group)
}

// UpdatePolicy enables, re-offsets or disables the TTL policy of a
// collection group and returns the operation that does it.
func (e *Engine) UpdatePolicy(ctx context.Context, u policy.Update) (policy.Operation, error) {
	return e.pol.UpdatePolicy(ctx, u)
}

// DryRunPolicy previews enabling u, changing nothing.
func (e *Engine) DryRunPolicy(ctx context.Context, u policy.Update) (policy.EnableDryRun, error) {
	return e.pol.DryRunPolicy(ctx, u)
}

// ListOperations returns the operations, most recent first.
func (e *Engine) ListOperations(ctx context.Context) ([]policy.Operation, error) {
	return e.pol.ListOperations(ctx)
}

// GetOperation returns one operation, or an error wrapping
// ErrOperationNotFound.
func (e *Engine) GetOperation(ctx context.Context, id string) (policy.Operation, error) {
	return e.pol.GetOperation(ctx, id)
}

// reapWriter is the writer as a policy source deletes through it.
type reapWriter struct{ w *writer }

func (r reapWriter) Fetch(idEnc []byte) (*stored.Doc, error) { return r.w.fetch(idEnc) }

func (r reapWriter) EntryKeysOf(doc bson.D) ([][]catalog.IndexKey, error) {
	return r.w.entryKeysOf(doc)
}

func (r reapWriter) RemoveExpired(sd *stored.Doc, why change.Expiry) error {
	return r.w.removeExpired(sd, why)
}
func (r reapWriter) Delete(key []byte) error { return r.w.b.Delete(key) }
func (r reapWriter) Commit() error           { return r.w.commit() }
func (r reapWriter) Close()                  { r.w.close() }
