package mongo

import (
	"encoding/hex"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Dropping or renaming a collection kills the cursors open on it, as
// MongoDB's query plans die when their collection goes: the next getMore
// of such a cursor fails with QueryPlanKilled (175) and the cursor is
// gone. Change stream cursors are not killed: they see the drop as an
// event.

// invalidate marks the cursors on namespace ns (a find, aggregate or
// tailable cursor, not a change stream) so that their next getMore fails
// with err and closes them.
func (r *cursorRegistry) invalidate(ns string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cursors {
		if c.ns != ns || c.killed != nil {
			continue
		}
		if _, stream := c.src.(*streamCursor); stream {
			continue
		}
		c.killed = err
	}
}

// collectionDropped invalidates the cursors on db.coll, dropped while its
// UUID was uuid.
func (s *Server) collectionDropped(db, coll string, uuid bson.Binary) {
	s.cursors.invalidate(namespace(db, coll),
		errorf(mongoerr.QueryPlanKilled, "collection dropped. UUID %s", uuidText(uuid.Data)))
}

// collectionRenamed invalidates the cursors on from, renamed to to.
func (s *Server) collectionRenamed(from, to string, uuid bson.Binary) {
	s.cursors.invalidate(from,
		errorf(mongoerr.QueryPlanKilled, "collection renamed from '%s' to '%s'. UUID %s", from, to, uuidText(uuid.Data)))
}

// CollectionsGone invalidates the cursors on collections that writes
// this server did not run took away: on a replica set member, the drops
// and renames of another member, found when its catalog is reloaded.
func (s *Server) CollectionsGone(gone []catalog.Gone) {
	for _, g := range gone {
		if g.RenamedTo != nil {
			s.collectionRenamed(g.NS.String(), g.RenamedTo.String(), g.UUID)
			continue
		}
		s.collectionDropped(g.NS.DB, g.NS.Coll, g.UUID)
	}
}

// uuidText is a UUID as MongoDB prints it in messages:
// 8-4-4-4-12 lower-case hex digits.
func uuidText(u []byte) string {
	h := hex.EncodeToString(u)
	if len(u) != 16 {
		return h
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
