package mongo

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// This file holds the helpers for command arguments parsed from decoded
// documents (bson.D, as docdb.DecodeDocument gives them): index specs and
// the options of create and collMod, whose messages print the values as
// mongod prints BSON.

// valueTypeName returns MongoDB's name of a decoded value's BSON type.
func valueTypeName(v any) string { return aggregate.TypeName(v) }

// fmtDoc renders a document as mongod prints BSON in messages.
func fmtDoc(d bson.D) string { return aggregate.FormatValue(d) }

// fmtNumber renders a number as mongod prints it in messages.
func fmtNumber(v any) string {
	if n, ok := catalog.ToInt64(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return aggregate.FormatValue(v)
}

// decodedFields calls fn for every field of a decoded command document
// after the command name, skipping the generic arguments.
func decodedFields(cmd bson.D, fn func(el bson.E) error) error {
	for i, el := range cmd {
		if i == 0 || genericArgs[el.Key] {
			continue
		}
		if err := fn(el); err != nil {
			return err
		}
	}
	return nil
}
