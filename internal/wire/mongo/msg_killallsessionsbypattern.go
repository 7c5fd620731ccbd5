package mongo

import (
	"bytes"
	"context"
	"crypto/sha256"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// sessionPattern is one element of killAllSessionsByPattern: a cursor's
// session matches when every field given matches (lsid: the session's id;
// uid: the SHA-256 of its user's "user@db"; users: one of those users). An
// empty pattern matches every session.
type sessionPattern struct {
	lsid  []byte
	uid   []byte
	users map[string]bool
}

func (p sessionPattern) matches(c *cursor) bool {
	if p.lsid != nil && !bytes.Equal(p.lsid, c.lsid) {
		return false
	}
	if p.uid != nil {
		sum := sha256.Sum256([]byte(c.owner))
		if !bytes.Equal(p.uid, sum[:]) {
			return false
		}
	}
	if p.users != nil && !p.users[c.owner] {
		return false
	}
	return true
}

// msgKillAllSessionsByPattern answers killAllSessionsByPattern: the open
// cursors of the sessions matching any of the patterns are closed; an empty
// list closes every session's cursors.
func msgKillAllSessionsByPattern(_ context.Context, c *conn, req *request) (bson.D, error) {
	const cmd = "killAllSessionsByPattern"
	v := req.first()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, typeMismatch(cmd, cmd, v.Type, "array")
	}
	vals, _ := arr.Values()
	if len(vals) == 0 {
		c.s.cursors.killAllSessions()
		return bson.D{}, nil
	}
	patterns := make([]sessionPattern, 0, len(vals))
	for _, x := range vals {
		doc, ok := x.DocumentOK()
		if !ok {
			return nil, typeMismatch(cmd, cmd, x.Type, "object")
		}
		p, err := parseSessionPattern(doc)
		if err != nil {
			return nil, err
		}
		patterns = append(patterns, p)
	}
	c.s.cursors.killMatching(func(cur *cursor) bool {
		for _, p := range patterns {
			if p.matches(cur) {
				return true
			}
		}
		return false
	})
	return bson.D{}, nil
}

func parseSessionPattern(doc bson.Raw) (sessionPattern, error) {
	const typ = "KillAllSessionsByPattern"
	var p sessionPattern
	elems, _ := doc.Elements()
	for _, e := range elems {
		v := e.Value()
		switch e.Key() {
		case "lsid":
			d, ok := v.DocumentOK()
			if !ok {
				return p, typeMismatch(typ, "lsid", v.Type, "object")
			}
			ids, err := sessionIDs(typ, bson.RawValue{Type: bson.TypeArray, Value: singleElementArray(d)})
			if err != nil {
				return p, err
			}
			p.lsid = ids[0]
		case "uid":
			_, data, ok := v.BinaryOK()
			if !ok {
				return p, typeMismatch(typ, "uid", v.Type, "binData")
			}
			p.uid = data
		case "users":
			users, err := killSessionUsers(typ+".users", v)
			if err != nil {
				return p, err
			}
			p.users = users
		case "roles":
			// Roles select sessions by their users' roles; a session here
			// knows only its user, so a roles pattern matches none.
			if _, ok := v.ArrayOK(); !ok {
				return p, typeMismatch(typ, "roles", v.Type, "array")
			}
			p.users = map[string]bool{}
		default:
			return p, unknownField(typ, e.Key())
		}
	}
	return p, nil
}

// singleElementArray wraps doc as the BSON array [doc].
func singleElementArray(doc bson.Raw) []byte {
	arr := bson.D{{Key: "0", Value: doc}}
	b, _ := bson.Marshal(arr)
	return b
}
