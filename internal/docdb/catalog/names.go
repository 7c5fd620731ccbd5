package catalog

import (
	"strings"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Namespace rules, after MongoDB's NamespaceString and userAllowedCreateNS.

// maxDBNameLen is the length a database name must stay below.
const maxDBNameLen = 64

// MaxNamespaceLen is the longest fully qualified user namespace (db.coll).
const MaxNamespaceLen = 255

// legalSystemCollections are the system.* collections clients may create;
// writableSystemCollections those they may also write.
var (
	legalSystemCollections    = map[string]bool{"system.js": true, "system.users": true, "system.views": true, "system.profile": true, "system.roles": true, "system.version": true}
	writableSystemCollections = map[string]bool{"system.js": true, "system.users": true, "system.roles": true}
)

// SessionsDB and SessionsCollection name the collection of logical session
// records, config.system.sessions, which is created and written like a
// client's collection.
const (
	SessionsDB         = "config"
	SessionsCollection = "system.sessions"
)

// sessionsNS reports whether db.coll is config.system.sessions.
func sessionsNS(db, coll string) bool { return db == SessionsDB && coll == SessionsCollection }

// ValidDBName reports whether db is a valid database name.
func ValidDBName(db string) bool {
	if db == "" || len(db) >= maxDBNameLen {
		return false
	}
	return !strings.ContainsAny(db, "/\\. \"$\x00")
}

// CheckDB validates a database name.
func CheckDB(db string) error {
	if !ValidDBName(db) {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid database name: '%s'", db)
	}
	return nil
}

// CheckReadNS validates a namespace used by a read: a syntactically valid
// name is enough (a missing collection reads as empty). The messages are
// mongod 8's.
func CheckReadNS(db, coll string) error {
	if err := CheckDB(db); err != nil {
		return err
	}
	switch {
	case coll == "":
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid namespace specified: %s", db)
	case strings.IndexByte(coll, 0) >= 0:
		return mongoerr.New(mongoerr.InvalidNamespace, "namespaces cannot have embedded null characters")
	case coll[0] == '.':
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Collection names cannot start with '.': %s", coll)
	case strings.IndexByte(coll, '$') >= 0:
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid collection name: %s", coll)
	}
	return nil
}

// CheckCreateNS validates a namespace that create (or an implicit creation)
// may create: system collections other than the legal ones and names that
// are too long are refused.
func CheckCreateNS(db, coll string) error {
	if err := CheckReadNS(db, coll); err != nil {
		return err
	}
	ns := db + "." + coll
	if strings.HasPrefix(coll, "system.") && !legalSystemCollections[coll] && !strings.HasPrefix(coll, "system.buckets.") && !sessionsNS(db, coll) {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid system namespace: %s", ns)
	}
	if len(ns) > MaxNamespaceLen {
		return mongoerr.Newf(mongoerr.InvalidNamespace,
			"Fully qualified namespace is too long. Namespace: %s Max: %d", ns, MaxNamespaceLen)
	}
	return nil
}

// CheckWriteNS validates a namespace that a write command (insert, update,
// delete, findAndModify, createIndexes) touches.
func CheckWriteNS(db, coll string) error {
	if err := CheckCreateNS(db, coll); err != nil {
		return err
	}
	if strings.HasPrefix(coll, "system.") && !writableSystemCollections[coll] && !sessionsNS(db, coll) {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "cannot write to %s.%s", db, coll)
	}
	return nil
}
