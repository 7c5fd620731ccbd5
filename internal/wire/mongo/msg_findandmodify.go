package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// parseFindAndModify parses a findAndModify command document (also the
// inner command of explain), with MongoDB's checks of the option
// combinations.
func parseFindAndModify(db string, cmd bson.Raw) (string, docdb.FindAndModifyRequest, error) {
	const name = "findAndModify"
	var fr docdb.FindAndModifyRequest
	coll, err := commandCollection(db, cmd)
	if err != nil {
		return "", fr, err
	}
	haveUpdate := false
	err = fields(cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "query":
			fr.Query, err = optDocArg(name, el)
		case "sort":
			fr.Sort, err = optDocArg(name, el)
		case "remove":
			fr.Remove, err = boolArg(name, el)
		case "update":
			haveUpdate = true
			v := el.Value()
			switch v.Type {
			case bson.TypeEmbeddedDocument:
				fr.Update, err = decodeD(v.Document())
			case bson.TypeArray:
				fr.Pipeline, err = docsArg(name, el)
			default:
				err = errorf(mongoerr.FailedToParse, "Update argument must be either an object or an array")
			}
		case "new":
			fr.New, err = boolArg(name, el)
		case "fields":
			fr.Fields, err = optDocArg(name, el)
		case "upsert":
			fr.Upsert, err = boolArg(name, el)
		case "arrayFilters":
			fr.ArrayFilters, err = docsArg(name, el)
		case "hint":
			fr.Hint, err = hintArg(name, el)
		case "bypassDocumentValidation":
			fr.BypassDocumentValidation, err = boolArg(name, el)
		case "let":
			fr.Let, err = optDocArg(name, el)
		case "collation":
			fr.Collation, err = collationArg(name, el)
		case "isTimeseriesNamespace", "collectionUUID", "encryptionInformation":
			if truthy(el.Value()) {
				err = notSupported(name, k)
			}
		default:
			err = unknownField(name, k)
		}
		return err
	})
	if err != nil {
		return "", fr, err
	}
	switch {
	case fr.Remove && haveUpdate:
		return "", fr, errorf(mongoerr.FailedToParse, "Cannot specify both an update and remove=true")
	case !fr.Remove && !haveUpdate:
		return "", fr, errorf(mongoerr.FailedToParse, "Either an update or remove=true must be specified")
	case fr.Remove && fr.Upsert:
		return "", fr, errorf(mongoerr.FailedToParse, "Cannot specify both upsert=true and remove=true ")
	case fr.Remove && fr.New:
		return "", fr, errorf(mongoerr.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	case fr.Remove && fr.ArrayFilters != nil:
		return "", fr, errorf(mongoerr.FailedToParse, "Cannot specify arrayFilters and remove=true")
	}
	return coll, fr, nil
}

// msgFindAndModify answers findAndModify: {lastErrorObject: {n,
// updatedExisting, upserted}, value}.
func msgFindAndModify(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, fr, err := parseFindAndModify(req.db, req.cmd)
	if err != nil {
		return nil, err
	}
	if fr.Remove {
		c.s.metrics.opDelete.Add(1)
	} else {
		c.s.metrics.opUpdate.Add(1)
	}
	res, err := c.s.db.FindAndModify(ctx, req.db, coll, fr)
	if err != nil {
		return nil, err
	}
	leo := bson.D{{Key: "n", Value: countValue(res.N)}}
	switch {
	case fr.Remove:
		c.s.metrics.docDeleted.Add(res.N)
	default:
		leo = append(leo, bson.E{Key: "updatedExisting", Value: res.UpdatedExisting})
		if res.Upserted.Type != 0 {
			leo = append(leo, bson.E{Key: "upserted", Value: res.Upserted})
			c.s.metrics.docInserted.Add(1)
		} else if res.UpdatedExisting {
			c.s.metrics.docUpdated.Add(res.N)
		}
	}
	var value any
	if res.Value != nil {
		value = res.Value
		c.s.metrics.docReturned.Add(1)
	}
	return bson.D{{Key: "lastErrorObject", Value: leo}, {Key: "value", Value: value}}, nil
}
