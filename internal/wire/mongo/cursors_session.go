package mongo

import (
	"bytes"
	"crypto/sha256"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// checkCursorSession refuses a getMore of cursor cur from a session other
// than the one that opened it, as MongoDB does: a cursor opened in a
// session is read only in that session (50738), and not without one
// (50737). A cursor opened without a session may be read from any.
func (c *conn) checkCursorSession(cur *cursor, req *request) error {
	if cur.lsid == nil {
		return nil
	}
	mine := lsidOf(req)
	if mine == nil {
		return errorf(mongoerr.Location50737, "Cannot run getMore on cursor %d, which was created in session %s, without an lsid",
			cur.id, lsidName(cur.lsid, cur.owner))
	}
	if !bytes.Equal(mine, cur.lsid) {
		return errorf(mongoerr.Location50738, "Cannot run getMore on cursor %d, which was created in session %s, in session %s",
			cur.id, lsidName(cur.lsid, cur.owner), lsidName(mine, c.userString()))
	}
	return nil
}

// lsidName is how MongoDB prints the logical session id of user's
// session id in getMore's messages: the id, the SHA-256 of the user's
// name in base64, then the empty transaction fields.
func lsidName(id []byte, user string) string {
	uid := sha256.Sum256([]byte(user))
	return sessionText(id, uid[:]) + " -  - "
}
