package mongo

import (
	"context"
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgStartSession answers startSession: a new session with a random UUID
// (version 4), registered and recorded, and its timeout in minutes.
func msgStartSession(ctx context.Context, c *conn, _ *request) (bson.D, error) {
	id := make([]byte, 16)
	rand.Read(id)
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	now := c.s.now()
	s, _ := c.s.sessions.Use(id, c.userHash(), now)
	s.Lock()
	defer s.Unlock()
	if err := c.s.prepareSession(ctx, s, now, true); err != nil {
		return nil, err
	}
	return bson.D{
		{Key: "id", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: id}}}},
		{Key: "timeoutMinutes", Value: int32(logicalSessions)},
	}, nil
}
