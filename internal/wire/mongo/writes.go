package mongo

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// This file holds what insert, update and delete share: their command
// fields (the statement array, ordered, bypassDocumentValidation, let) and
// the reply's writeErrors.

// writeCommand is a write command's fields besides its statements'
// contents, as parseWriteCommand parses them.
type writeCommand struct {
	// stmts are the statement documents (documents, updates, deletes).
	stmts   []bson.Raw
	ordered bool
	bypass  bool
	let     bson.D
}

// parseWriteCommand parses the fields of the write command name after the
// collection: its statement array stmtsField (required), ordered (true by
// default), bypassDocumentValidation, let when withLet, and the fields
// mayfly refuses when set.
func parseWriteCommand(name, stmtsField string, withLet bool, cmd bson.Raw) (writeCommand, error) {
	wc := writeCommand{ordered: true}
	have := false
	err := fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := elementKey(el); string(k) {
		case stmtsField:
			have = true
			wc.stmts, err = statementsArg(name, el)
		case "ordered":
			wc.ordered, err = boolArg(name, el)
		case "bypassDocumentValidation":
			wc.bypass, err = boolArg(name, el)
		case "let":
			if !withLet {
				return unknownField(name, string(k))
			}
			wc.let, err = optDocArg(name, el)
		case "isTimeseriesNamespace", "collectionUUID", "encryptionInformation":
			if truthy(el.Value()) {
				err = notSupported(name, string(k))
			}
		default:
			err = unknownField(name, string(k))
		}
		return err
	})
	if err != nil {
		return wc, err
	}
	if !have {
		return wc, missingField(name, stmtsField)
	}
	return wc, nil
}

// statementsArg returns the documents of a write command's statement array
// (documents, updates, deletes), with MongoDB's limits on the batch size.
func statementsArg(cmd string, el bson.RawElement) ([]bson.Raw, error) {
	v := el.Value()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, typeMismatch(cmd, el.Key(), v.Type, "array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errorf(mongoerr.InvalidBSON, "invalid %s array: %v", el.Key(), err)
	}
	if len(vals) == 0 || len(vals) > MaxWriteBatchSize {
		return nil, errorf(mongoerr.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", MaxWriteBatchSize, len(vals))
	}
	docs := make([]bson.Raw, len(vals))
	for i, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, typeMismatch(cmd, el.Key()+"."+itoa(i), x.Type, "object")
		}
		docs[i] = d
	}
	return docs, nil
}

// writeErrorsDoc returns the writeErrors array of a reply.
func writeErrorsDoc(errs []docdb.WriteError) bson.A {
	arr := make(bson.A, len(errs))
	for i, we := range errs {
		arr[i] = writeErrorDoc(we.Index, we.Err)
	}
	return arr
}

// countValue returns n as MongoDB appends a count: int32 when it fits.
func countValue(n int64) any {
	if n >= -1<<31 && n < 1<<31 {
		return int32(n)
	}
	return n
}
