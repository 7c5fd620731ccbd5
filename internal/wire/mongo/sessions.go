package mongo

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// lsidOf returns the id bytes of the request's logical session (lsid.id),
// or nil. Cursors remember it so that endSessions and killSessions close
// them.
func lsidOf(req *request) []byte {
	v, err := req.cmd.LookupErr("lsid", "id")
	if err != nil {
		return nil
	}
	if _, data, ok := v.BinaryOK(); ok {
		// A copy: the cursor outlives the request's buffer.
		return bytes.Clone(data)
	}
	return nil
}

// sessionIDs returns the session ids of an endSessions or killSessions
// array: [{id: UUID}, ...].
func sessionIDs(cmd string, v bson.RawValue) ([][]byte, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, typeMismatch(cmd, cmd, v.Type, "array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errorf(mongoerr.InvalidBSON, "invalid session list: %v", err)
	}
	ids := make([][]byte, 0, len(vals))
	for _, x := range vals {
		doc, ok := x.DocumentOK()
		if !ok {
			return nil, typeMismatch(cmd, cmd, x.Type, "object")
		}
		id, err := doc.LookupErr("id")
		if err != nil {
			return nil, missingField("LogicalSessionFromClient", "id")
		}
		_, data, ok := id.BinaryOK()
		if !ok {
			return nil, typeMismatch("LogicalSessionFromClient", "id", id.Type, "binData")
		}
		ids = append(ids, data)
	}
	return ids, nil
}
