package docdb

// This file holds the bodies of API methods not implemented yet; each
// returns NotImplemented (238) until its real implementation replaces it.

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

var errPending = mongoerr.New(mongoerr.NotImplemented, "not implemented yet")

func (e *Engine) unregisterAllSources()                  {}
func (e *Engine) collectionGone(*collMeta)               {}
func (e *Engine) collectionRenamed(_, _ *collMeta)       {}
func (e *Engine) indexesAdded(*collMeta, []*indexMeta)   {}
func (e *Engine) indexesDropped(*collMeta, []*indexMeta) {}

func (e *Engine) collMod(context.Context, string, string, bson.D) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) aggregate(context.Context, string, string, AggregateRequest) (Cursor, error) {
	return nil, errPending
}
func (e *Engine) update(context.Context, string, string, UpdateRequest) (UpdateResult, error) {
	return UpdateResult{}, errPending
}
func (e *Engine) delete(context.Context, string, string, DeleteRequest) (DeleteResult, error) {
	return DeleteResult{}, errPending
}
func (e *Engine) findAndModify(context.Context, string, string, FindAndModifyRequest) (FindAndModifyResult, error) {
	return FindAndModifyResult{}, errPending
}
func (e *Engine) explainFind(context.Context, string, string, FindRequest, Verbosity) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) explainCount(context.Context, string, string, CountRequest, Verbosity) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) explainDistinct(context.Context, string, string, DistinctRequest, Verbosity) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) explainAggregate(context.Context, string, string, AggregateRequest, Verbosity) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) explainUpdate(context.Context, string, string, UpdateStatement, Verbosity) (bson.D, error) {
	return nil, errPending
}
func (e *Engine) explainDelete(context.Context, string, string, DeleteStatement, Verbosity) (bson.D, error) {
	return nil, errPending
}
