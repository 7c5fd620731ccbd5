package mongo

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgRenameCollection answers renameCollection: {renameCollection:
// "db.a", to: "db.b", dropTarget}. It runs on the admin database.
func msgRenameCollection(ctx context.Context, c *conn, req *request) (bson.D, error) {
	v := req.first()
	from, ok := v.StringValueOK()
	if !ok {
		return nil, typeMismatch("renameCollection", "renameCollection", v.Type, "string")
	}
	var to string
	haveTo, dropTarget := false, false
	err := fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "to":
			haveTo = true
			to, err = stringArg("renameCollection", el)
		case "dropTarget":
			dropTarget, err = boolArg("renameCollection", el)
		case "stayTemp":
			_, err = boolArg("renameCollection", el)
		case "collectionUUID", "expectedSourceUUID", "expectedTargetUUID":
			err = notSupported("renameCollection", k)
		default:
			err = unknownField("renameCollection", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveTo {
		return nil, missingField("renameCollection", "to")
	}
	fromDB, fromColl, ok := splitNamespace(from)
	if !ok {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid source namespace: %s", from)
	}
	toDB, toColl, ok := splitNamespace(to)
	if !ok {
		return nil, errorf(mongoerr.InvalidNamespace, "Invalid target namespace: %s", to)
	}
	fromUUID := c.s.db.CollectionUUIDs(fromDB)[fromColl]
	toUUID, targetExisted := c.s.db.CollectionUUIDs(toDB)[toColl]
	if err := c.s.db.RenameCollection(ctx, fromDB, fromColl, toDB, toColl, dropTarget); err != nil {
		return nil, err
	}
	c.s.collectionRenamed(from, to, fromUUID)
	if targetExisted {
		c.s.collectionDropped(toDB, toColl, toUUID)
	}
	c.s.metrics.collLatencies.forget(namespace(fromDB, fromColl))
	c.s.metrics.collLatencies.forget(namespace(toDB, toColl))
	return bson.D{}, nil
}

// splitNamespace splits "db.coll" at the first dot.
func splitNamespace(ns string) (db, coll string, ok bool) {
	db, coll, ok = strings.Cut(ns, ".")
	return db, coll, ok && db != "" && coll != ""
}
