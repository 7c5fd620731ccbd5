package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgSaslContinue answers saslContinue: the next message of the
// connection's conversation, named by conversationId.
func msgSaslContinue(ctx context.Context, c *conn, req *request) (bson.D, error) {
	var payload []byte
	payloadSeen := false
	id := int64(-1)
	err := eachElement(req.cmd, func(el bson.RawElement) error {
		var err error
		switch el.Key() {
		case "payload":
			payload, err = saslPayload("saslContinue", el.Value())
			payloadSeen = true
		case "conversationId":
			id, err = int64Arg("saslContinue", el)
		case "saslContinue":
		default:
			if !genericArgs[el.Key()] {
				err = unknownField("saslContinue", el.Key())
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !payloadSeen {
		return nil, missingField("saslContinue", "payload")
	}
	if c.sasl != nil && id != int64(saslConversationID) {
		return nil, errorf(mongoerr.ProtocolError, "sasl: Mismatched conversation id")
	}
	return c.saslContinue(ctx, payload)
}
