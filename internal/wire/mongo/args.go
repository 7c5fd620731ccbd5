package mongo

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// This file holds the helpers that parse command fields with the errors
// MongoDB's IDL parser gives for the same mistakes.

// numberTypes is the IDL's list for a field that takes any number.
const numberTypes = "[long, int, decimal, double']"

// typeName returns MongoDB's alias of a BSON type, as error messages use it.
func typeName(t bson.Type) string {
	switch t {
	case bson.TypeDouble:
		return "double"
	case bson.TypeString:
		return "string"
	case bson.TypeEmbeddedDocument:
		return "object"
	case bson.TypeArray:
		return "array"
	case bson.TypeBinary:
		return "binData"
	case bson.TypeUndefined:
		return "undefined"
	case bson.TypeObjectID:
		return "objectId"
	case bson.TypeBoolean:
		return "bool"
	case bson.TypeDateTime:
		return "date"
	case bson.TypeNull:
		return "null"
	case bson.TypeRegex:
		return "regex"
	case bson.TypeDBPointer:
		return "dbPointer"
	case bson.TypeJavaScript:
		return "javascript"
	case bson.TypeSymbol:
		return "symbol"
	case bson.TypeCodeWithScope:
		return "javascriptWithScope"
	case bson.TypeInt32:
		return "int"
	case bson.TypeTimestamp:
		return "timestamp"
	case bson.TypeInt64:
		return "long"
	case bson.TypeDecimal128:
		return "decimal"
	case bson.TypeMinKey:
		return "minKey"
	case bson.TypeMaxKey:
		return "maxKey"
	default:
		return fmt.Sprintf("type(%d)", byte(t))
	}
}

// typeMismatch is the IDL's error for a field of the wrong type. want is a
// single type name ("bool") or a bracketed list (numberTypes).
func typeMismatch(cmd, field string, got bson.Type, want string) error {
	path := field
	if cmd != "" {
		path = cmd + "." + field
	}
	if strings.HasPrefix(want, "[") {
		return errorf(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected types '%s", path, typeName(got), want)
	}
	return errorf(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type '%s'", path, typeName(got), want)
}

// unknownField is the IDL's error for a field a strict command does not
// know.
func unknownField(cmd, field string) error {
	return errorf(mongoerr.IDLUnknownField, "BSON field '%s.%s' is an unknown field.", cmd, field)
}

// missingField is the IDL's error for a required field that is absent.
func missingField(cmd, field string) error {
	return errorf(mongoerr.IDLFailedToParse, "BSON field '%s.%s' is missing but a required field", cmd, field)
}

// genericArgs are the fields every command accepts (generic_argument.idl).
// mayfly acts on maxTimeMS and txnNumber (runCommand); the rest are
// accepted and, for a standalone server, have no effect.
var genericArgs = map[string]bool{
	"$db": true, "lsid": true, "$clusterTime": true, "txnNumber": true, "autocommit": true,
	"startTransaction": true, "stmtId": true, "comment": true, "$readPreference": true,
	"readConcern": true, "writeConcern": true, "maxTimeMS": true, "apiVersion": true,
	"apiStrict": true, "apiDeprecationErrors": true, "$audit": true, "$client": true,
	"$configServerState": true, "$oplogQueryData": true, "$queryOptions": true, "$replData": true,
	"databaseVersion": true, "shardVersion": true, "tracking_info": true, "coordinator": true,
	"maxTimeMSOpOnly": true, "usesDefaultMaxTimeMS": true, "$configTime": true,
	"$topologyTime": true, "txnRetryCounter": true, "mayBypassWriteBlocking": true,
	"clientOperationKey": true, "allowImplicitCollectionCreation": true, "help": true,
	"$traceCtx": true, "rawData": true, "expectPrefix": true, "requestGossipRoutingCache": true,
	"$gleStats": true, "versionContext": true,
}

// numberAsInt64 converts any BSON number to int64, truncating a fraction
// toward zero; false for other types, NaN and values out of range.
func numberAsInt64(v bson.RawValue) (int64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return int64(v.Int32()), true
	case bson.TypeInt64:
		return v.Int64(), true
	case bson.TypeDouble:
		return floatToInt64(v.Double())
	case bson.TypeDecimal128:
		f, ok := decimalToFloat(v.Decimal128())
		if !ok {
			return 0, false
		}
		return floatToInt64(f)
	}
	return 0, false
}

func floatToInt64(f float64) (int64, bool) {
	f = math.Trunc(f)
	if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// numberAsFloat converts any BSON number to float64.
func numberAsFloat(v bson.RawValue) (float64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return float64(v.Int32()), true
	case bson.TypeInt64:
		return float64(v.Int64()), true
	case bson.TypeDouble:
		return v.Double(), true
	case bson.TypeDecimal128:
		return decimalToFloat(v.Decimal128())
	}
	return 0, false
}

func decimalToFloat(d bson.Decimal128) (float64, bool) {
	var f float64
	if _, err := fmt.Sscan(d.String(), &f); err != nil {
		switch d.String() {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
		return 0, false
	}
	return f, true
}

// isNumber reports whether t is a BSON number type.
func isNumber(t bson.Type) bool {
	return t == bson.TypeInt32 || t == bson.TypeInt64 || t == bson.TypeDouble || t == bson.TypeDecimal128
}

// truthy is BSONElement::trueValue: false for false, null, undefined and
// zero, true for everything else.
func truthy(v bson.RawValue) bool {
	switch v.Type {
	case bson.TypeBoolean:
		return v.Boolean()
	case bson.TypeNull, bson.TypeUndefined:
		return false
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeDecimal128:
		f, _ := numberAsFloat(v)
		return f != 0
	}
	return true
}

// boolArg parses an IDL "safeBool"-like field: a bool or a number.
func boolArg(cmd string, el bson.RawElement) (bool, error) {
	v := el.Value()
	if v.Type == bson.TypeBoolean || isNumber(v.Type) {
		return truthy(v), nil
	}
	return false, typeMismatch(cmd, el.Key(), v.Type, "bool")
}

// int64Arg parses a field that takes any number.
func int64Arg(cmd string, el bson.RawElement) (int64, error) {
	v := el.Value()
	n, ok := numberAsInt64(v)
	if !ok {
		if isNumber(v.Type) {
			return 0, errorf(mongoerr.BadValue, "BSON field '%s.%s' value %s is out of range", cmd, el.Key(), valueString(v))
		}
		return 0, typeMismatch(cmd, el.Key(), v.Type, numberTypes)
	}
	return n, nil
}

// stringArg parses a string field.
func stringArg(cmd string, el bson.RawElement) (string, error) {
	v := el.Value()
	s, ok := v.StringValueOK()
	if !ok {
		return "", typeMismatch(cmd, el.Key(), v.Type, "string")
	}
	return s, nil
}

// docArg decodes an object field into a bson.D, nested documents as bson.D
// and arrays as bson.A, as the document model takes them.
func docArg(cmd string, el bson.RawElement) (bson.D, error) {
	v := el.Value()
	raw, ok := v.DocumentOK()
	if !ok {
		return nil, typeMismatch(cmd, el.Key(), v.Type, "object")
	}
	return decodeD(raw)
}

// optDocArg is docArg where null means absent.
func optDocArg(cmd string, el bson.RawElement) (bson.D, error) {
	if t := el.Value().Type; t == bson.TypeNull || t == bson.TypeUndefined {
		return nil, nil
	}
	return docArg(cmd, el)
}

// decodeD decodes a raw document into a bson.D. Every value keeps its BSON
// type (int32, int64, double, decimal, binary subtype, ...).
func decodeD(raw bson.Raw) (bson.D, error) {
	d, err := docdb.DecodeDocument(raw)
	if err != nil {
		return nil, errorf(mongoerr.InvalidBSON, "cannot decode document: %v", err)
	}
	if d == nil {
		d = bson.D{}
	}
	return d, nil
}

// docsArg decodes an array of objects (a pipeline, a list of index specs)
// into []bson.D; elemWhat names the elements in the error for a non-object.
func docsArg(cmd string, el bson.RawElement) ([]bson.D, error) {
	v := el.Value()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, typeMismatch(cmd, el.Key(), v.Type, "array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errorf(mongoerr.InvalidBSON, "cannot decode array: %v", err)
	}
	out := make([]bson.D, 0, len(vals))
	for i, x := range vals {
		raw, ok := x.DocumentOK()
		if !ok {
			return nil, typeMismatch(cmd, fmt.Sprintf("%s.%d", el.Key(), i), x.Type, "object")
		}
		d, err := decodeD(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// hintArg parses a hint: an index name or a key pattern.
func hintArg(cmd string, el bson.RawElement) (any, error) {
	v := el.Value()
	switch v.Type {
	case bson.TypeString:
		return v.StringValue(), nil
	case bson.TypeEmbeddedDocument:
		return decodeD(v.Document())
	}
	return nil, errorf(mongoerr.FailedToParse, "hint must be either a string or nested object")
}

// collectionArg returns the collection named by the command's first field,
// with MongoDB's errors for a non-string or empty name.
func collectionArg(req *request) (string, error) { return commandCollection(req.db, req.cmd) }

// commandCollection returns the collection named by the first field of a
// command document (a request's, or the inner command of explain).
func commandCollection(db string, cmd bson.Raw) (string, error) {
	v := cmd.Index(0).Value()
	s, ok := v.StringValueOK()
	if !ok {
		return "", errorf(mongoerr.InvalidNamespace, "collection name has invalid type %s", typeName(v.Type))
	}
	if s == "" {
		return "", errorf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.'", db)
	}
	return s, nil
}

// rawValueToAny converts a BSON value to the Go value Parameter.Set and
// the document model take: bool, int32, int64, float64 (a Decimal128
// converted), string, nil for null and undefined, bson.D for documents,
// bson.A for arrays and the bson package's types for the rest.
func rawValueToAny(v bson.RawValue) any {
	switch v.Type {
	case bson.TypeBoolean:
		return v.Boolean()
	case bson.TypeInt32:
		return v.Int32()
	case bson.TypeInt64:
		return v.Int64()
	case bson.TypeDouble:
		return v.Double()
	case bson.TypeDecimal128:
		f, _ := decimalToFloat(v.Decimal128())
		return f
	case bson.TypeString:
		return v.StringValue()
	case bson.TypeNull, bson.TypeUndefined:
		return nil
	}
	var x any
	if err := v.Unmarshal(&x); err != nil {
		return v
	}
	return x
}

// fields calls fn for every field of cmd after the command name, skipping
// the generic arguments every command accepts. cmd is a request's command
// or a document inside it, which runCommand has validated element by
// element (after decodeOpMsg's readDocument validated it whole), so its
// elements are not validated again.
func fields(cmd bson.Raw, fn func(el bson.RawElement) error) error {
	first := true
	return walkElements(cmd, false, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		if genericArgs[string(elementKey(el))] {
			return nil
		}
		return fn(el)
	})
}

// elementKey returns the key of a valid element as bytes, so that a map
// lookup or switch on string(elementKey(el)) does not allocate.
func elementKey(el bson.RawElement) []byte {
	end := bytes.IndexByte(el[1:], 0)
	if end < 0 {
		return nil
	}
	return el[1 : 1+end]
}

// eachElement calls fn with each element of doc in order, stopping at its
// first error. It checks each element as bson.Raw.Elements does, without
// collecting them in a slice.
func eachElement(doc bson.Raw, fn func(el bson.RawElement) error) error {
	return walkElements(doc, true, fn)
}

// walkElements is eachElement, checking each element's value only when
// validate is set; the element boundaries are always checked.
func walkElements(doc bson.Raw, validate bool, fn func(el bson.RawElement) error) error {
	length, rem, ok := bsoncore.ReadLength(doc)
	if !ok || int(length) > len(doc) || length < 5 {
		return errorf(mongoerr.InvalidBSON, "invalid command document: %v", bsoncore.NewInsufficientBytesError(doc, rem))
	}
	rem = doc[4 : length-1]
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return errorf(mongoerr.InvalidBSON, "invalid command document: %v", bsoncore.NewInsufficientBytesError(doc, rem))
		}
		if validate {
			if err := el.Validate(); err != nil {
				return errorf(mongoerr.InvalidBSON, "invalid command document: %v", err)
			}
		}
		if err := fn(bson.RawElement(el)); err != nil {
			return err
		}
		rem = rest
	}
	return nil
}

// nonNegative is the IDL validator error for a field that must be >= 0.
func nonNegative(field string, n int64) error {
	if n >= 0 {
		return nil
	}
	return errorf(mongoerr.Location51024, "BSON field '%s' value must be >= 0, actual value '%d'", field, n)
}

// notSupported refuses an option mayfly does not implement, explicitly
// rather than by ignoring it.
func notSupported(cmd, field string) error {
	return errorf(mongoerr.NotImplemented, "%s: the '%s' option is not supported by mayfly", cmd, field)
}

// collationArg reads a command's collation: a document, checked and
// applied by the document database (an empty one, or locale "simple", is
// the binary comparison).
func collationArg(cmd string, el bson.RawElement) (bson.D, error) {
	return docArg(cmd, el)
}

// namespace returns "db.coll".
func namespace(db, coll string) string { return db + "." + coll }

func itoa(i int) string { return strconv.Itoa(i) }
