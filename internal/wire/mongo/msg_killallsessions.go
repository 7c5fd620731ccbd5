package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgKillAllSessions answers killAllSessions: [{user, db}, ...]. The open
// cursors of every session of the listed users are closed; an empty list
// closes every session's cursors, as MongoDB does.
func msgKillAllSessions(_ context.Context, c *conn, req *request) (bson.D, error) {
	const cmd = "killAllSessions"
	users, err := killSessionUsers(cmd, req.first())
	if err != nil {
		return nil, err
	}
	if len(users) == 0 {
		c.s.cursors.killAllSessions()
		return bson.D{}, nil
	}
	c.s.cursors.killMatching(func(cur *cursor) bool { return users[cur.owner] })
	return bson.D{}, nil
}

// killSessionUsers parses an array of {user, db} documents into the set of
// "user@db" names cursors record as their owner.
func killSessionUsers(cmd string, v bson.RawValue) (map[string]bool, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, typeMismatch(cmd, cmd, v.Type, "array")
	}
	vals, _ := arr.Values()
	users := map[string]bool{}
	for _, x := range vals {
		doc, ok := x.DocumentOK()
		if !ok {
			return nil, typeMismatch(cmd, cmd, x.Type, "object")
		}
		var name [2]string
		for i, f := range []string{"user", "db"} {
			fv, err := doc.LookupErr(f)
			if err != nil {
				return nil, missingField("KillAllSessionsUser", f)
			}
			s, ok := fv.StringValueOK()
			if !ok {
				return nil, typeMismatch("KillAllSessionsUser", f, fv.Type, "string")
			}
			name[i] = s
		}
		users[name[0]+"@"+name[1]] = true
	}
	return users, nil
}

// killMatching closes the idle cursors opened in a session that match.
func (r *cursorRegistry) killMatching(match func(*cursor) bool) {
	var victims []*cursor
	r.mu.Lock()
	for id, c := range r.cursors {
		if !c.inUse && c.lsid != nil && match(c) {
			victims = append(victims, c)
			delete(r.cursors, id)
		}
	}
	r.mu.Unlock()
	for _, c := range victims {
		c.src.Close()
	}
}
