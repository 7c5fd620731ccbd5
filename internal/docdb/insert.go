package docdb

import (
	"context"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// prepareAhead is how many documents of an insert are prepared before the
// collection's write lock is taken.
const prepareAhead = 128

func (e *Engine) insert(ctx context.Context, db, coll string, req InsertRequest) (InsertResult, error) {
	var res InsertResult
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return res, err
	}
	// Preparing a document (validating it, decoding it, placing its _id)
	// needs nothing of the collection, so the first prepareAhead are
	// prepared before the collection's write lock is taken, which
	// concurrent inserters wait for; the rest of a large batch is prepared
	// as it is written, so that its decoded documents are not all held at
	// once. Each document's error is reported in turn below, as if it had
	// been prepared there.
	ahead := min(len(req.Documents), prepareAhead)
	// A single document (insertOne) needs no slices on the heap.
	var onePrepared [1]*stored.Doc
	var onePrepErr [1]error
	prepared, prepErrs := onePrepared[:], onePrepErr[:]
	if ahead > 1 {
		prepared, prepErrs = make([]*stored.Doc, ahead), make([]error, ahead)
	}
	for i, raw := range req.Documents[:ahead] {
		prepared[i], prepErrs[i] = e.prepareInsert(raw)
	}
	if len(req.Documents) == 1 && e.groupWrites(ctx) {
		return e.insertGrouped(ctx, db, coll, req, prepared[0], prepErrs[0])
	}
	c, _, err := e.lockOrCreateCollIn(ctx, db, coll)
	if err != nil {
		return res, err
	}
	defer c.WriteMu.Unlock()
	w := e.newWriterIn(ctx, c)
	defer w.close()
	w.atOnce = w.atOnce || req.Retryable != nil
	val, err := e.newValidator(c.Meta, req.BypassDocumentValidation)
	if err != nil {
		return res, err
	}
	pending := int64(0)
	for i := range req.Documents {
		if err := ctx.Err(); err != nil {
			if w.atOnce {
				return InsertResult{}, err
			}
			if cerr := w.finish(); cerr != nil {
				return res, cerr
			}
			res.N += pending
			return res, err
		}
		var sd *stored.Doc
		var err error
		if i < ahead {
			sd, err = prepared[i], prepErrs[i]
			prepared[i] = nil
		} else {
			sd, err = e.prepareInsert(req.Documents[i])
		}
		werr, err := insertChecked(w, val, sd, err)
		if err != nil {
			return res, err
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: werr})
			if req.Ordered {
				break
			}
			continue
		}
		pending++
		if w.full() {
			if err := w.commit(); err != nil {
				return res, err
			}
			res.N += pending
			pending = 0
		}
	}
	res.N += pending
	if err := w.recordRetry(req.Retryable, res); err != nil {
		return res, err
	}
	if err := w.finish(); err != nil {
		res.N -= pending
		return res, err
	}
	return res, nil
}

// insertGrouped inserts one prepared document (sd, or its preparation's
// error prepErr) through the namespace's write group (group.go).
func (e *Engine) insertGrouped(ctx context.Context, db, coll string, req InsertRequest, sd *stored.Doc, prepErr error) (InsertResult, error) {
	var res InsertResult
	gw := &groupedWrite{create: true, waitTxns: waitsForTxns(ctx), run: func(w *writer) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		val, err := e.newValidator(w.meta, req.BypassDocumentValidation)
		if err != nil {
			return err
		}
		werr, err := insertChecked(w, val, sd, prepErr)
		if err != nil {
			return err
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: 0, Err: werr})
		} else {
			res.N = 1
		}
		return w.recordRetry(req.Retryable, res)
	}}
	if err := e.runGrouped(db, coll, gw); err != nil {
		return InsertResult{}, err
	}
	return res, nil
}

// insertChecked validates sd and inserts it through w, or fails with its
// preparation's error prepErr. A failure the client is told of (a
// duplicate key, a validation error) is writeErr; err is any other, which
// fails the whole write.
func insertChecked(w *writer, val *validator, sd *stored.Doc, prepErr error) (writeErr, err error) {
	err = prepErr
	if err == nil {
		err = val.check(sd, nil)
	}
	if err == nil {
		err = w.insert(sd)
	}
	if err == nil {
		return nil, nil
	}
	if _, ok := mongoerr.As(err); !ok {
		return nil, err
	}
	return err, nil
}
