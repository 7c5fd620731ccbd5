package mongo

import (
	"context"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/timeseries"
)

// msgCreate answers create: the options are parsed here (validator,
// clusteredIndex, expireAfterSeconds, ...), the ones mayfly does not
// support refused, and the document model creates the collection.
func msgCreate(ctx context.Context, c *conn, req *request) (bson.D, error) {
	coll, err := collectionArg(req)
	if err != nil {
		return nil, err
	}
	cmd, err := decodeD(req.cmd)
	if err != nil {
		return nil, err
	}
	cr, err := parseCreate(cmd)
	if err != nil {
		return nil, err
	}
	if err := c.s.db.CreateCollection(ctx, req.db, coll, cr); err != nil {
		var exists *docdb.CollectionExistsError
		if errors.As(err, &exists) {
			return nil, namespaceExists(exists)
		}
		return nil, err
	}
	return bson.D{}, nil
}

// parseCreate parses a create command's options.
func parseCreate(cmd bson.D) (docdb.CreateCollectionRequest, error) {
	var cr docdb.CreateCollectionRequest
	var capped cappedArgs
	err := decodedFields(cmd, func(el bson.E) error {
		if handled, err := validationField(&cr.Validation, el); handled {
			return err
		}
		if handled, err := capped.field("create", el); handled {
			return err
		}
		switch el.Key {
		case "collation":
			cr.Collation, _ = el.Value.(bson.D)
			if cr.Collation == nil {
				return errorf(mongoerr.TypeMismatch, "BSON field 'create.collation' is the wrong type '%s', expected type 'object'", valueTypeName(el.Value))
			}
		case "clusteredIndex":
			name, err := clusteredIndexArg(el.Value)
			if err != nil {
				return err
			}
			cr.Clustered, cr.ClusteredIndexName = true, name
		case "expireAfterSeconds":
			n, err := collectionExpireAfter(el.Value)
			if err != nil {
				return err
			}
			cr.ExpireAfterSeconds = &n
		case "timeseries":
			o, err := timeseriesArg(el.Value)
			if err != nil {
				return err
			}
			cr.Timeseries = &o
		case "changeStreamPreAndPostImages":
			on, err := preAndPostImagesArg("create", el.Value)
			if err != nil {
				return err
			}
			cr.PreAndPostImages = &on
		default:
			return createOtherField(el)
		}
		return nil
	})
	if err != nil {
		return cr, err
	}
	if cr.Capped, err = capped.options(cr.Clustered); err != nil {
		return cr, err
	}
	if cr.ExpireAfterSeconds != nil && !cr.Clustered && cr.Timeseries == nil {
		return cr, errorf(mongoerr.InvalidOptions,
			"'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified")
	}
	return cr, nil
}

// createOtherField checks a create option mayfly does not act on: the
// storage tuning options are accepted and ignored, views and queryable
// encryption are refused.
func createOtherField(el bson.E) error {
	switch el.Key {
	case "autoIndexId", "idIndex", "storageEngine", "indexOptionDefaults", "flags",
		"recordPreImages", "temp":
	case "viewOn", "pipeline":
		return errorf(mongoerr.NotImplemented, "views are not supported")
	case "encryptedFields":
		return errorf(mongoerr.NotImplemented, "queryable encryption is not supported")
	default:
		return errorf(mongoerr.IDLUnknownField, "BSON field 'create.%s' is an unknown field.", el.Key)
	}
	return nil
}

// clusteredIndexArg checks create's clusteredIndex option (true, or
// {key: {_id: 1}, unique: true, name?, v?}) and returns the index's name
// ("" for the default).
func clusteredIndexArg(v any) (string, error) {
	switch x := v.(type) {
	case bool:
		if !x {
			return "", errorf(mongoerr.BadValue, "clusteredIndex: false is not supported")
		}
		return "", nil
	case bson.D:
		return clusteredIndexSpec(x)
	}
	return "", errorf(mongoerr.TypeMismatch,
		"BSON field 'clusteredIndex' is the wrong type '%s', expected types '[bool, object]'", valueTypeName(v))
}

// clusteredIndexSpec checks clusteredIndex given as a document.
func clusteredIndexSpec(spec bson.D) (string, error) {
	var key bson.D
	name := ""
	unique := false
	for _, e := range spec {
		switch e.Key {
		case "key":
			key, _ = e.Value.(bson.D)
		case "unique":
			unique = catalog.Truthy(e.Value)
		case "name":
			s, ok := e.Value.(string)
			if !ok {
				return "", errorf(mongoerr.TypeMismatch,
					"BSON field 'clusteredIndex.name' is the wrong type '%s', expected type 'string'", valueTypeName(e.Value))
			}
			name = s
		case "v":
		default:
			return "", errorf(mongoerr.IDLUnknownField, "BSON field 'clusteredIndex.%s' is an unknown field.", e.Key)
		}
	}
	if len(key) != 1 || key[0].Key != "_id" || catalog.KeyDirection(key[0].Value) != 1 {
		return "", errorf(mongoerr.InvalidIndexSpecificationOption,
			"The clusteredIndex option is only supported for key: {_id: 1}")
	}
	if !unique {
		return "", errorf(mongoerr.InvalidIndexSpecificationOption,
			"The clusteredIndex option requires unique: true")
	}
	return name, nil
}

// collectionExpireAfter checks a clustered collection's expireAfterSeconds
// (create and collMod).
func collectionExpireAfter(v any) (int64, error) {
	if !catalog.IsNumber(v) {
		return 0, errorf(mongoerr.TypeMismatch,
			"BSON field 'expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", valueTypeName(v))
	}
	f, _ := catalog.ToFloat(v)
	if math.IsNaN(f) || f < 0 {
		return 0, errorf(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if f > math.MaxInt64/1000 {
		return 0, errorf(mongoerr.InvalidOptions,
			"TTL index 'expireAfterSeconds' option cannot overflow int64_t when cast as milliseconds, found %v", v)
	}
	return int64(f), nil
}

// timeseriesArg parses create's timeseries option: {timeField, metaField?,
// granularity?, bucketMaxSpanSeconds?, bucketRoundingSeconds?}. The
// combinations are checked by the document model
// (timeseries.Options.Normalize).
func timeseriesArg(v any) (timeseries.Options, error) {
	var o timeseries.Options
	spec, ok := v.(bson.D)
	if !ok {
		return o, errorf(mongoerr.TypeMismatch,
			"BSON field 'create.timeseries' is the wrong type '%s', expected type 'object'", valueTypeName(v))
	}
	str := func(e bson.E) (string, error) {
		s, ok := e.Value.(string)
		if !ok {
			return "", errorf(mongoerr.TypeMismatch,
				"BSON field 'timeseries.%s' is the wrong type '%s', expected type 'string'", e.Key, valueTypeName(e.Value))
		}
		return s, nil
	}
	seconds := func(e bson.E) (int64, error) {
		n, ok := catalog.ToInt64(e.Value)
		if !catalog.IsNumber(e.Value) || !ok {
			return 0, errorf(mongoerr.TypeMismatch,
				"BSON field 'timeseries.%s' is the wrong type '%s', expected type 'int'", e.Key, valueTypeName(e.Value))
		}
		if n < 1 {
			return 0, errorf(mongoerr.Location51024,
				"BSON field 'timeseries.%s' value must be >= 1, actual value '%d'", e.Key, n)
		}
		if n > timeseries.MaxSpanLimit {
			return 0, errorf(mongoerr.Location51024,
				"BSON field 'timeseries.%s' value must be <= %d, actual value '%d'", e.Key, timeseries.MaxSpanLimit, n)
		}
		return n, nil
	}
	hasTime := false
	for _, e := range spec {
		var err error
		switch e.Key {
		case "timeField":
			o.TimeField, err = str(e)
			hasTime = true
		case "metaField":
			o.MetaField, err = str(e)
		case "granularity":
			if o.Granularity, err = str(e); err == nil && !timeseries.ValidGranularity(o.Granularity) {
				err = errorf(mongoerr.BadValue,
					"Enumeration value '%s' for field 'timeseries.granularity' is not a valid value.", o.Granularity)
			}
		case "bucketMaxSpanSeconds":
			o.MaxSpan, err = seconds(e)
		case "bucketRoundingSeconds":
			o.Rounding, err = seconds(e)
		default:
			err = errorf(mongoerr.IDLUnknownField, "BSON field 'timeseries.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return o, err
		}
	}
	if !hasTime {
		return o, errorf(mongoerr.IDLFailedToParse, "BSON field 'timeseries.timeField' is missing but a required field")
	}
	return o, nil
}

// namespaceExists words create's refusal of an existing collection with
// other options as MongoDB does: the existing collection's options, its
// UUID first.
func namespaceExists(e *docdb.CollectionExistsError) error {
	opts := append(bson.D{{Key: "uuid", Value: e.UUID}}, e.Options...)
	raw, err := bson.Marshal(opts)
	if err != nil {
		return fmt.Errorf("create: encode the options of %s.%s: %w", e.DB, e.Coll, err)
	}
	return errorf(mongoerr.NamespaceExists, "namespace %s.%s already exists, but with different options: %s",
		e.DB, e.Coll, valueString(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: raw}))
}
