package mongo

import (
	"bytes"
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgHello answers hello, isMaster and ismaster: a standalone server that
// is writable, with the protocol limits drivers size their batches by.
// topologyVersion is left out on purpose: without it drivers poll instead
// of using awaitable (streaming) hello, which mayfly does not implement.
func msgHello(_ context.Context, c *conn, req *request) (bson.D, error) {
	helloOk := false
	if v, err := req.cmd.LookupErr("helloOk"); err == nil {
		helloOk = truthy(v)
	}
	if v, err := req.cmd.LookupErr("client"); err == nil {
		if c.clientMeta != nil {
			return nil, errorf(mongoerr.ClientMetadataCannotBeMutated, "The client metadata document may only be sent in the first hello")
		}
		doc, ok := v.DocumentOK()
		if !ok {
			return nil, errorf(mongoerr.TypeMismatch, "'client' field is wrong type, expected object")
		}
		c.clientMeta = bytes.Clone(doc) // kept for the connection's life, not the request's
		c.sharedMeta.Store(&c.clientMeta)
		c.log.Info("client metadata", "client", truncate(doc.String(), 1024))
	}
	d := make(bson.D, 0, 14)
	if helloOk {
		d = append(d, bson.E{Key: "helloOk", Value: true})
	}
	if req.name == "hello" {
		d = append(d, bson.E{Key: "isWritablePrimary", Value: true})
	} else {
		d = append(d, bson.E{Key: "ismaster", Value: true})
	}
	return append(d,
		bson.E{Key: "maxBsonObjectSize", Value: int32(MaxBSONObjectSize)},
		bson.E{Key: "maxMessageSizeBytes", Value: int32(MaxMessageSizeBytes)},
		bson.E{Key: "maxWriteBatchSize", Value: int32(MaxWriteBatchSize)},
		bson.E{Key: "localTime", Value: bson.NewDateTimeFromTime(c.s.now())},
		bson.E{Key: "logicalSessionTimeoutMinutes", Value: int32(logicalSessions)},
		bson.E{Key: "connectionId", Value: int32(c.id)},
		bson.E{Key: "minWireVersion", Value: int32(minWireVersion)},
		bson.E{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		bson.E{Key: "readOnly", Value: false},
	), nil
}
