package docdb

import (
	"context"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/timeseries"
)

// This file is the Engine's API as the wire layer sees it: one method per
// MongoDB command (or family of commands), with request and result types.
//
// Conventions:
//   - db and coll are the database and collection names as the client sent
//     them; the Engine validates them (InvalidNamespace, 73).
//   - Client-visible failures are *mongoerr.Error values (code, message and,
//     for some, Info with extra reply fields such as keyPattern/keyValue or
//     errInfo). Any other error is an internal failure.
//   - Requests are typed values the wire layer parsed and checked from the
//     command document (field names, types, option combinations, batch
//     sizes, with MongoDB's IDL errors); the Engine never sees a command
//     document. What the data model itself defines is checked here:
//     filters, projections, sorts, update documents, pipelines and
//     validators, as decoded documents (bson.D, nested documents as bson.D
//     and arrays as bson.A, as bson.Unmarshal into a bson.D produces them).
//     Documents to store and documents returned are raw BSON, byte-exact.
//   - A missing database or collection reads as empty; writes create them.

// ErrCursorClosed is returned by Cursor.Next after Close.
var ErrCursorClosed = errorString("docdb: cursor closed")

type errorString string

func (e errorString) Error() string { return string(e) }

// Cursor streams the documents of a find or aggregate. Next returns io.EOF
// once every document has been returned. The wire layer batches (batchSize,
// getMore) by calling Next; documents are filtered for expiry at the moment
// Next is called, so a getMore never returns a document that expired since
// the cursor was opened (strict visibility). A Cursor is not safe for
// concurrent use; Close releases its storage snapshot and may be called more
// than once.
type Cursor interface {
	// Next returns the next document, or io.EOF at the end.
	Next(ctx context.Context) (bson.Raw, error)
	// Close releases the cursor.
	Close()
}

// EOF is io.EOF, returned by Cursor.Next at the end of the results.
var EOF = io.EOF

// FindRequest is a find command.
type FindRequest struct {
	// Filter selects documents; nil means all.
	Filter bson.D
	// Projection shapes the returned documents; nil returns them whole.
	Projection bson.D
	// Sort orders the results; nil means natural order (_id order for a
	// collection scan, index order for an index scan).
	Sort bson.D
	// Skip drops the first Skip results (>= 0).
	Skip int64
	// Limit returns at most Limit results; 0 means no limit. The wire layer
	// maps a negative limit to its absolute value plus singleBatch.
	Limit int64
	// Hint forces an index: an index name (string) or a key pattern
	// (bson.D); nil lets the planner choose. {$natural: 1|-1} forces a
	// collection scan.
	Hint any
	// AllowDiskUse lets a blocking sort past its memory limit spill to
	// disk; nil means allowDiskUseByDefault.
	AllowDiskUse *bool
	// Let holds variables for the filter's $expr ($$name).
	Let bson.D
	// ReturnKey returns each result's key in the scanned index instead of
	// the document; ShowRecordID adds its $recordId.
	ReturnKey, ShowRecordID bool
	// Collation compares the filter's strings by a collation spec; nil is
	// the simple binary comparison.
	Collation bson.D
}

// CountRequest is a count command.
type CountRequest struct {
	// Filter selects documents; nil means all.
	Filter bson.D
	// Skip and Limit apply before counting; Limit 0 means no limit.
	Skip, Limit int64
	// Hint forces an index, as in FindRequest.
	Hint any
	// Collation compares the filter's strings by a collation spec; nil is
	// the simple binary comparison.
	Collation bson.D
}

// DistinctRequest is a distinct command.
type DistinctRequest struct {
	// Key is the dotted field path whose distinct values are returned.
	Key string
	// Filter selects documents; nil means all.
	Filter bson.D
	// Hint forces an index, as in FindRequest.
	Hint any
	// Collation, as in FindRequest; distinct values equal under it are
	// returned once.
	Collation bson.D
}

// AggregateRequest is an aggregate command on a collection.
type AggregateRequest struct {
	// Pipeline is the list of stages, each a one-field document.
	Pipeline []bson.D
	// Hint forces an index for the leading $match/$sort, as in FindRequest.
	Hint any
	// Let holds variables for the pipeline ($$name).
	Let bson.D
	// BypassDocumentValidation skips validation in $out and $merge.
	BypassDocumentValidation bool
	// AllowDiskUse, as in FindRequest, for $sort.
	AllowDiskUse *bool
	// Collation, as in FindRequest, for the pipeline's leading $match.
	Collation bson.D
}

// WriteError is the failure of one statement of a write command, reported in
// the reply's writeErrors array.
type WriteError struct {
	// Index is the statement's position in the request.
	Index int
	// Err is the failure, a *mongoerr.Error for client-visible ones.
	Err error
}

// InsertRequest is an insert command.
type InsertRequest struct {
	// Documents are the documents to insert, raw as the client sent them. A
	// document without _id gets a new ObjectId as its first field.
	Documents []bson.Raw
	// Ordered stops at the first failure; otherwise every document is tried.
	Ordered bool
	// BypassDocumentValidation skips the collection's validator.
	BypassDocumentValidation bool
	// Retryable, when set, makes the write retryable (retry.go).
	Retryable *Retryable
}

// InsertResult is the outcome of an insert command.
type InsertResult struct {
	// N is the number of documents inserted.
	N int64
	// WriteErrors lists the failed documents.
	WriteErrors []WriteError
}

// UpdateStatement is one statement of an update command.
type UpdateStatement struct {
	// Filter selects the documents to update (q).
	Filter bson.D
	// Update is an update document (u): either all operators ($set, ...) or
	// a replacement document. Exactly one of Update and Pipeline is set.
	Update bson.D
	// Pipeline is an aggregation pipeline update (u given as an array).
	Pipeline []bson.D
	// Multi updates every matching document, not only the first.
	Multi bool
	// Upsert inserts a document when none matches.
	Upsert bool
	// ArrayFilters are the filters of $[<identifier>] positional operators.
	ArrayFilters []bson.D
	// Hint forces an index, as in FindRequest.
	Hint any
	// Collation, as in FindRequest, for the statement's filter.
	Collation bson.D
}

// UpdateRequest is an update command.
type UpdateRequest struct {
	Statements []UpdateStatement
	// Ordered stops at the first failing statement.
	Ordered bool
	// BypassDocumentValidation skips the collection's validator.
	BypassDocumentValidation bool
	// Let holds variables for the filters and pipeline updates.
	Let bson.D
	// Retryable, when set, makes the write retryable (retry.go).
	Retryable *Retryable
}

// Upserted is one document inserted by an upsert.
type Upserted struct {
	// Index is the statement's position in the request.
	Index int
	// ID is the new document's _id.
	ID bson.RawValue
}

// UpdateResult is the outcome of an update command.
type UpdateResult struct {
	// N is the number of documents matched plus the number upserted.
	N int64
	// NModified is the number of documents actually changed.
	NModified int64
	// Upserted lists the upserted documents.
	Upserted []Upserted
	// WriteErrors lists the failed statements.
	WriteErrors []WriteError
}

// DeleteStatement is one statement of a delete command.
type DeleteStatement struct {
	// Filter selects the documents to delete (q).
	Filter bson.D
	// Limit is 0 (all matching documents) or 1 (the first).
	Limit int
	// Hint forces an index, as in FindRequest.
	Hint any
	// Collation, as in FindRequest, for the statement's filter.
	Collation bson.D
}

// DeleteRequest is a delete command.
type DeleteRequest struct {
	Statements []DeleteStatement
	// Ordered stops at the first failing statement.
	Ordered bool
	// Let holds variables for the filters ($expr).
	Let bson.D
	// Retryable, when set, makes the write retryable (retry.go).
	Retryable *Retryable
}

// DeleteResult is the outcome of a delete command.
type DeleteResult struct {
	// N is the number of documents deleted.
	N int64
	// WriteErrors lists the failed statements.
	WriteErrors []WriteError
}

// FindAndModifyRequest is a findAndModify command.
type FindAndModifyRequest struct {
	// Query selects the candidate documents.
	Query bson.D
	// Sort picks the first candidate.
	Sort bson.D
	// Remove deletes the document; it excludes Update, Pipeline, Upsert and
	// New.
	Remove bool
	// Update is an operator or replacement update document.
	Update bson.D
	// Pipeline is an aggregation pipeline update.
	Pipeline []bson.D
	// New returns the document after the update instead of before.
	New bool
	// Upsert inserts a document when none matches.
	Upsert bool
	// Fields is a projection of the returned document.
	Fields bson.D
	// ArrayFilters are the filters of $[<identifier>] positional operators.
	ArrayFilters []bson.D
	// Hint forces an index, as in FindRequest.
	Hint any
	// BypassDocumentValidation skips the collection's validator.
	BypassDocumentValidation bool
	// Let holds variables for the query and pipeline updates.
	Let bson.D
	// Collation, as in FindRequest, for the query.
	Collation bson.D
	// Retryable, when set, makes the write retryable (retry.go).
	Retryable *Retryable
}

// FindAndModifyResult is the outcome of a findAndModify command.
type FindAndModifyResult struct {
	// Value is the document (before or after, per New, projected by
	// Fields); nil means null (nothing matched, or removed nothing).
	Value bson.Raw
	// N is lastErrorObject.n: 1 when a document was found, updated, removed
	// or upserted, else 0.
	N int64
	// UpdatedExisting is lastErrorObject.updatedExisting (updates only).
	UpdatedExisting bool
	// Upserted is lastErrorObject.upserted, the new _id; zero (Type 0) when
	// nothing was upserted.
	Upserted bson.RawValue
}

// CreateCollectionRequest is a create command's options, parsed and
// checked by the wire layer. They are stored, and listed by
// listCollections, in this order: validator, validationLevel,
// validationAction, collation, clusteredIndex, expireAfterSeconds.
type CreateCollectionRequest struct {
	// Validation is the collection's schema validation.
	Validation ValidationOptions
	// Collation is stored as given; nil when absent.
	Collation bson.D
	// Clustered makes the collection clustered on _id, its documents being
	// its _id index; ClusteredIndexName names that index ("_id_" when "").
	Clustered          bool
	ClusteredIndexName string
	// Timeseries makes the collection a time-series collection with these
	// options (timeseries.Options.Normalize checks them).
	Timeseries *timeseries.Options
	// ExpireAfterSeconds is a clustered collection's TTL, on its _id dates;
	// nil when absent.
	ExpireAfterSeconds *int64
	// PreAndPostImages is changeStreamPreAndPostImages.enabled: the
	// change log keeps the documents before and after each change; nil
	// when absent.
	PreAndPostImages *bool
	// Capped makes the collection capped; nil for an ordinary collection.
	Capped *CappedOptions
}

// CappedOptions bound a capped collection: at most Size bytes of documents
// and, when Max is not 0, at most Max documents. The wire layer has
// checked them and stored a max of 0 or less as 2^31-1 (as MongoDB does);
// the Engine rounds Size up to a multiple of 256.
type CappedOptions struct {
	Size, Max int64
}

// ValidationOptions are a collection's validator, validationLevel and
// validationAction as a create or collMod command gives them. A nil
// Validator and empty strings mean "not given": create uses the defaults
// (no validator, strict, error), collMod leaves the current value. An
// empty, non-nil Validator removes validation.
type ValidationOptions struct {
	Validator bson.D
	// Level is "strict", "moderate" or "off".
	Level string
	// Action is "error" or "warn".
	Action string
}

// CollModRequest is a collMod command, parsed and checked by the wire
// layer.
type CollModRequest struct {
	// Validation replaces the options it gives.
	Validation ValidationOptions
	// ExpireAfterSeconds changes a clustered collection's TTL; nil leaves it.
	ExpireAfterSeconds *CollectionExpiry
	// Index changes one index; nil leaves the indexes.
	Index *CollModIndex
	// DryRun validates and previews the change instead of applying it.
	DryRun bool
	// PreAndPostImages turns changeStreamPreAndPostImages on or off; nil
	// leaves it.
	PreAndPostImages *bool
	// CappedSize and CappedMax change a capped collection's bound (the
	// wire layer has checked their ranges); nil leaves them.
	CappedSize, CappedMax *int64
}

// CollectionExpiry is collMod's expireAfterSeconds for a clustered
// collection: Off removes the TTL, otherwise Seconds (>= 0) replaces it.
// Invalid is the wire layer's error for a value that is neither; MongoDB
// reports it only once the collection is known to be clustered (for any
// other collection the option itself is refused).
type CollectionExpiry struct {
	Off     bool
	Seconds int64
	Invalid error
}

// CollModIndex is collMod's index argument: the index, by Name or by
// KeyPattern (exactly one is set), and what changes (at least one of
// Hidden and ExpireAfterSeconds is set).
type CollModIndex struct {
	Name       string
	KeyPattern bson.D
	// Hidden hides the index from the planner, or shows it again.
	Hidden *bool
	// ExpireAfterSeconds sets the index's TTL (0..2147483647), converting
	// a single-field index into a TTL index.
	ExpireAfterSeconds *int64
}

// IndexSpec is one index of createIndexes, validated by the wire layer. It
// is stored and listed as {v: 2, key, name, ...Options}.
type IndexSpec struct {
	Key  bson.D
	Name string
	// Options are the index's other options in the order given: unique,
	// sparse, hidden and prepareUnique only when true (as true),
	// expireAfterSeconds as an int32, partialFilterExpression, collation,
	// background and storageEngine as given.
	Options bson.D
}

// DropIndexesRequest names the indexes a dropIndexes command drops: All
// (index: "*", every index but _id_), the one index on KeyPattern, or the
// indexes called Names (index: a name or a list of names).
type DropIndexesRequest struct {
	All        bool
	KeyPattern bson.D
	Names      []string
}

// CreateIndexesResult is the outcome of a createIndexes command.
type CreateIndexesResult struct {
	// NumIndexesBefore and NumIndexesAfter count the collection's indexes,
	// _id_ included.
	NumIndexesBefore, NumIndexesAfter int
	// CreatedCollectionAutomatically is true when the collection did not
	// exist.
	CreatedCollectionAutomatically bool
	// Note is "all indexes already exist" when nothing was created.
	Note string
}

// DatabaseInfo is one entry of listDatabases.
type DatabaseInfo struct {
	Name string
	// SizeOnDisk is an estimate: the bytes of documents and index entries.
	SizeOnDisk int64
	// Empty is true when the database holds no documents.
	Empty bool
}

// DBStats answers dbStats. Sizes are in bytes.
type DBStats struct {
	Collections int64
	Objects     int64
	DataSize    int64
	StorageSize int64
	Indexes     int64
	IndexSize   int64
	TotalSize   int64
}

// CollStats answers collStats and $collStats. Sizes are in bytes.
type CollStats struct {
	Count          int64
	Size           int64
	AvgObjSize     int64
	StorageSize    int64
	NIndexes       int64
	TotalIndexSize int64
	// IndexSizes maps index names to their byte size, in catalog order.
	IndexSizes []IndexSize
	// Capped is set for a capped collection, with its bound: MaxSize
	// bytes and Max documents (0: none).
	Capped       bool
	Max, MaxSize int64
	// Timeseries is set for a time-series collection, whose figures above
	// are its bucket collection's.
	Timeseries *TimeseriesStats
}

// TimeseriesStats is collStats' timeseries section.
type TimeseriesStats struct {
	BucketsNs     string
	BucketCount   int64
	AvgBucketSize int64
}

// IndexSize is the size of one index.
type IndexSize struct {
	Name string
	Size int64
}

// Verbosity is the verbosity of an explain.
type Verbosity int

// The explain verbosities, as MongoDB names them.
const (
	// QueryPlanner plans the query without running it.
	QueryPlanner Verbosity = iota
	// ExecutionStats runs the winning plan and reports its statistics.
	ExecutionStats
	// AllPlansExecution is ExecutionStats plus the statistics of the
	// rejected plans (mayfly reports the winning plan's only).
	AllPlansExecution
)

// Catalog commands.

// CreateCollection creates db.coll (create) with the options the wire
// layer parsed. It fails with NamespaceExists (48) `Collection db.coll
// already exists.` when the collection exists.
func (e *Engine) CreateCollection(ctx context.Context, db, coll string, req CreateCollectionRequest) error {
	if t := txnOf(ctx); t != nil {
		return t.createCollIn(db, coll, req)
	}
	if req.Timeseries != nil {
		return e.createTimeseries(db, coll, req)
	}
	return e.createCollection(ctx, db, coll, req)
}

// FindTailable opens a tailable cursor on the capped collection db.coll
// (find with tailable, and awaitData when awaitData is set): it returns
// the documents in natural order and, past the last, the ones inserted
// later. The wire layer has checked the options (sort {$natural: 1} at
// most, no singleBatch).
func (e *Engine) FindTailable(ctx context.Context, db, coll string, req FindRequest, awaitData bool) (*TailCursor, error) {
	return e.findTailable(ctx, db, coll, req, awaitData)
}

// CloneCollectionAsCapped copies db.from into the new capped collection
// db.to of size bytes (cloneCollectionAsCapped).
func (e *Engine) CloneCollectionAsCapped(ctx context.Context, db, from, to string, size int64) error {
	return e.cloneCollectionAsCapped(ctx, db, from, to, size)
}

// ConvertToCapped replaces db.coll with a capped copy of size bytes
// (convertToCapped).
func (e *Engine) ConvertToCapped(ctx context.Context, db, coll string, size int64) error {
	return e.convertToCapped(ctx, db, coll, size)
}

// DropCollection drops db.coll with its indexes (drop). It reports whether
// the collection existed; dropping a missing collection is not an error.
func (e *Engine) DropCollection(ctx context.Context, db, coll string) (existed bool, err error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		coll = ts.meta.Name
	}
	return e.dropCollection(ctx, db, coll)
}

// CollectionUUIDs returns the UUID of each collection of db by name (a
// time-series collection's buckets collection among them).
func (e *Engine) CollectionUUIDs(db string) map[string]bson.Binary {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := map[string]bson.Binary{}
	for _, c := range e.cat.DBCollections(db) {
		out[c.Meta.Name] = c.Meta.UUID
	}
	return out
}

// DropDatabase drops every collection of db (dropDatabase). Dropping a
// missing database is not an error.
func (e *Engine) DropDatabase(ctx context.Context, db string) error {
	return e.dropDatabase(ctx, db)
}

// ListDatabases lists the databases that hold at least one collection, by
// name (listDatabases).
func (e *Engine) ListDatabases(ctx context.Context) ([]DatabaseInfo, error) {
	return e.listDatabases(ctx)
}

// ListCollections returns the listCollections entries of db in MongoDB's
// shape ({name, type: "collection", options, info: {readOnly, uuid},
// idIndex}), sorted by name, keeping those that match filter (nil: all).
// With nameOnly the entries are {name, type}.
func (e *Engine) ListCollections(ctx context.Context, db string, filter bson.D, nameOnly bool) ([]bson.D, error) {
	return e.listCollections(ctx, db, filter, nameOnly)
}

// RenameCollection renames fromDB.fromColl to toDB.toColl
// (renameCollection), within a database or across databases. With
// dropTarget an existing target is dropped first; without it an existing
// target fails with NamespaceExists (48). A missing source fails with
// NamespaceNotFound (26) `Source collection db.c does not exist`.
func (e *Engine) RenameCollection(ctx context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	return e.renameCollection(ctx, fromDB, fromColl, toDB, toColl, dropTarget)
}

// CollMod changes a collection's options (collMod). It returns the reply's
// extra fields (expireAfterSeconds_old/_new as int64, hidden_old/_new), in
// MongoDB's order; the wire layer adds ok: 1. With req.DryRun the change is
// validated in full and previewed (DryRun's Fields come first) instead of
// applied.
func (e *Engine) CollMod(ctx context.Context, db, coll string, req CollModRequest) (bson.D, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		if req.Index != nil && req.Index.ExpireAfterSeconds != nil {
			return nil, errTimeseriesIndexTTL
		}
		coll = ts.meta.Name
	}
	return e.collMod(ctx, db, coll, req)
}

// Index commands.

// CreateIndexes builds the given indexes (createIndexes). The collection is
// created if missing. Errors follow MongoDB exactly (67, 85, 86, 11000 for a
// unique build over duplicates). A failed build leaves no index behind.
func (e *Engine) CreateIndexes(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsCreateIndexes(ctx, ts, specs)
	}
	return e.createIndexes(ctx, db, coll, specs)
}

// ListIndexes returns the indexes of db.coll in creation order, each as
// {v: 2, key, name, ...options} (listIndexes). A missing collection fails
// with NamespaceNotFound (26) `ns does not exist: db.coll`.
func (e *Engine) ListIndexes(ctx context.Context, db, coll string) ([]bson.D, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsListIndexes(ctx, ts)
	}
	return e.listIndexes(ctx, db, coll)
}

// DropIndexes drops the indexes req names (dropIndexes). It returns the
// number of indexes before the drop (nIndexesWas).
func (e *Engine) DropIndexes(ctx context.Context, db, coll string, req DropIndexesRequest) (nIndexesWas int, err error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		coll = ts.meta.Name
		if req.KeyPattern != nil {
			req.KeyPattern = renameKeys(req.KeyPattern, func(p string) string { q, _ := ts.bucketPath(p); return q })
		}
	}
	return e.dropIndexes(ctx, db, coll, req)
}

// Read commands.

// Find runs a find and returns a cursor over its results. The cursor reads
// a storage snapshot taken now.
func (e *Engine) Find(ctx context.Context, db, coll string, req FindRequest) (Cursor, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsFind(ctx, ts, req)
	}
	return e.find(ctx, db, coll, req)
}

// Count counts the documents matching req (count, and the
// countDocuments/estimatedDocumentCount helpers).
func (e *Engine) Count(ctx context.Context, db, coll string, req CountRequest) (int64, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsCount(ctx, ts, req)
	}
	return e.count(ctx, db, coll, req)
}

// Distinct returns the distinct values of req.Key among the matching
// documents (distinct), arrays contributing their elements, in MongoDB's
// sort order.
func (e *Engine) Distinct(ctx context.Context, db, coll string, req DistinctRequest) (bson.A, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsDistinct(ctx, ts, req)
	}
	return e.distinct(ctx, db, coll, req)
}

// Aggregate runs a pipeline on db.coll (aggregate) and returns a cursor
// over its output. A leading $match (and $sort) is planned like a find.
func (e *Engine) Aggregate(ctx context.Context, db, coll string, req AggregateRequest) (Cursor, error) {
	return e.aggregate(ctx, db, coll, req)
}

// Write commands.

// Insert inserts documents (insert). Per-document failures are in
// InsertResult.WriteErrors; the error return is for failures of the whole
// command (an invalid namespace).
func (e *Engine) Insert(ctx context.Context, db, coll string, req InsertRequest) (InsertResult, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsInsert(ctx, ts, req)
	}
	return untilTxnsEnd(ctx, func(ctx context.Context) (InsertResult, error) { return e.insert(ctx, db, coll, req) })
}

// Update runs the statements of an update command.
func (e *Engine) Update(ctx context.Context, db, coll string, req UpdateRequest) (UpdateResult, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsUpdate(ctx, ts, req)
	}
	return untilTxnsEnd(ctx, func(ctx context.Context) (UpdateResult, error) { return e.update(ctx, db, coll, req) })
}

// Delete runs the statements of a delete command.
func (e *Engine) Delete(ctx context.Context, db, coll string, req DeleteRequest) (DeleteResult, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsDelete(ctx, ts, req)
	}
	return untilTxnsEnd(ctx, func(ctx context.Context) (DeleteResult, error) { return e.delete(ctx, db, coll, req) })
}

// FindAndModify runs a findAndModify command.
func (e *Engine) FindAndModify(ctx context.Context, db, coll string, req FindAndModifyRequest) (FindAndModifyResult, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return FindAndModifyResult{}, errTimeseriesUpdates
	}
	return untilTxnsEnd(ctx, func(ctx context.Context) (FindAndModifyResult, error) { return e.findAndModify(ctx, db, coll, req) })
}

// Explain.

// ExplainFind explains a find: it returns {queryPlanner, executionStats}
// (executionStats only for ExecutionStats and AllPlansExecution); the wire
// layer adds command, serverInfo and ok.
func (e *Engine) ExplainFind(ctx context.Context, db, coll string, req FindRequest, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainFind(ctx, db, coll, req, v))
}

// ExplainCount explains a count, as ExplainFind does (a COUNT stage on top).
func (e *Engine) ExplainCount(ctx context.Context, db, coll string, req CountRequest, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainCount(ctx, db, coll, req, v))
}

// ExplainDistinct explains a distinct, as ExplainFind does.
func (e *Engine) ExplainDistinct(ctx context.Context, db, coll string, req DistinctRequest, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainDistinct(ctx, db, coll, req, v))
}

// ExplainAggregate explains a pipeline: {stages: [{$cursor: {queryPlanner,
// executionStats}}, ...the other stages]}.
func (e *Engine) ExplainAggregate(ctx context.Context, db, coll string, req AggregateRequest, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainAggregate(ctx, db, coll, req, v))
}

// ExplainUpdate explains the first statement of an update without writing
// anything (UPDATE stage over the query plan).
func (e *Engine) ExplainUpdate(ctx context.Context, db, coll string, st UpdateStatement, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainUpdate(ctx, db, coll, st, v))
}

// ExplainDelete explains the first statement of a delete without writing
// anything (DELETE stage over the query plan).
func (e *Engine) ExplainDelete(ctx context.Context, db, coll string, st DeleteStatement, v Verbosity) (bson.D, error) {
	return allPlans(v)(e.explainDelete(ctx, db, coll, st, v))
}

// Statistics and checks.

// DBStats returns the statistics of db (dbStats).
func (e *Engine) DBStats(ctx context.Context, db string) (DBStats, error) {
	return e.dbStats(ctx, db)
}

// CollStats returns the statistics of db.coll (collStats). A missing
// collection fails with NamespaceNotFound (26).
func (e *Engine) CollStats(ctx context.Context, db, coll string) (CollStats, error) {
	if ts := e.timeseriesOf(db, coll); ts != nil {
		return e.tsCollStats(ctx, ts)
	}
	return e.collStats(ctx, db, coll)
}

// Check verifies the storage invariants: every index entry points to an
// existing document whose keys include it, and every document has all of
// its index entries. It returns an error describing the first violation.
func (e *Engine) Check(ctx context.Context) error {
	return e.check(ctx)
}
