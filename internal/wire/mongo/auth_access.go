package mongo

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// The requirements that depend on a command's document, as MongoDB
// computes them for each command. A malformed document needs nothing more
// here: its handler refuses it.

func collReq(db, coll string, actions ...string) mongoauth.Requirement {
	return mongoauth.Requirement{Resource: mongoauth.CollectionResource(db, coll), Actions: mongoauth.Actions(actions...)}
}

func dbReq(db string, actions ...string) mongoauth.Requirement {
	return mongoauth.Requirement{Resource: mongoauth.DBResource(db), Actions: mongoauth.Actions(actions...)}
}

func clusterReq(actions ...string) mongoauth.Requirement {
	return mongoauth.Requirement{Resource: mongoauth.ClusterResource, Actions: mongoauth.Actions(actions...)}
}

// aggregateAccess: find on the collection, or on the database for a
// collectionless pipeline ($currentOp needs inprog on the cluster
// instead); $out and $merge need writes on their target, $lookup and
// $unionWith find on theirs.
func aggregateAccess(req *request) []mongoauth.Requirement {
	var out []mongoauth.Requirement
	first := req.first()
	coll, isColl := first.StringValueOK()
	v, err := req.cmd.LookupErr("pipeline")
	var stages []bson.RawValue
	if err == nil {
		if arr, ok := v.ArrayOK(); ok {
			stages, _ = arr.Values()
		}
	}
	stageName := func(st bson.RawValue) (string, bson.RawValue) {
		doc, ok := st.DocumentOK()
		if !ok {
			return "", bson.RawValue{}
		}
		el, err := doc.IndexErr(0)
		if err != nil {
			return "", bson.RawValue{}
		}
		return el.Key(), el.Value()
	}
	if len(stages) > 0 {
		if name, arg := stageName(stages[0]); name == "$changeStream" {
			return changeStreamAccess(req.db, coll, isColl, arg)
		}
	}
	switch {
	case isColl:
		out = append(out, collReq(req.db, coll, "find"))
	case len(stages) > 0:
		if name, _ := stageName(stages[0]); name == "$currentOp" {
			out = append(out, clusterReq("inprog"))
		} else if name != "$documents" {
			out = append(out, dbReq(req.db, "find"))
		}
	default:
		out = append(out, dbReq(req.db, "find"))
	}
	for _, st := range stages {
		name, arg := stageName(st)
		switch name {
		case "$out":
			db, c := targetNS(req.db, arg, "db", "coll")
			out = append(out, collReq(db, c, "insert", "remove"))
		case "$merge":
			into := arg
			if d, ok := arg.DocumentOK(); ok {
				into, _ = d.LookupErr("into")
			}
			db, c := targetNS(req.db, into, "db", "coll")
			out = append(out, collReq(db, c, "insert", "update"))
		case "$lookup", "$graphLookup", "$unionWith":
			from := arg
			if d, ok := arg.DocumentOK(); ok {
				if name == "$unionWith" {
					from, _ = d.LookupErr("coll")
				} else {
					from, _ = d.LookupErr("from")
				}
			}
			if c, ok := from.StringValueOK(); ok {
				out = append(out, collReq(req.db, c, "find"))
			}
		case "$collStats":
			if isColl {
				out = append(out, collReq(req.db, coll, "collStats"))
			}
		case "$indexStats":
			if isColl {
				out = append(out, collReq(req.db, coll, "indexStats"))
			}
		}
	}
	return out
}

// targetNS reads a stage's target: a collection name in db, or a document
// naming its database and collection.
func targetNS(db string, v bson.RawValue, dbKey, collKey string) (string, string) {
	if s, ok := v.StringValueOK(); ok {
		return db, s
	}
	if d, ok := v.DocumentOK(); ok {
		if x, err := d.LookupErr(dbKey); err == nil {
			if s, ok := x.StringValueOK(); ok {
				db = s
			}
		}
		if x, err := d.LookupErr(collKey); err == nil {
			if s, ok := x.StringValueOK(); ok {
				return db, s
			}
		}
	}
	return db, ""
}

// explainAccess: what the explained command needs.
func explainAccess(req *request) []mongoauth.Requirement {
	v, err := req.cmd.LookupErr("explain")
	if err != nil {
		return nil
	}
	doc, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	inner, err := newRequest(req.c, req.db, doc)
	if err != nil || inner.name == "explain" {
		return nil
	}
	cmd, ok := commandTable[inner.name]
	if !ok {
		return nil
	}
	return cmd.access.requirements(inner)
}

// findAndModifyAccess: update, or remove with remove: true; insert too
// with upsert: true.
func findAndModifyAccess(req *request) []mongoauth.Requirement {
	coll, _ := req.first().StringValueOK()
	actions := []string{"update"}
	if v, err := req.cmd.LookupErr("remove"); err == nil && truthy(v) {
		actions = []string{"remove"}
	}
	if v, err := req.cmd.LookupErr("upsert"); err == nil && truthy(v) {
		actions = append(actions, "insert")
	}
	return []mongoauth.Requirement{collReq(req.db, coll, actions...)}
}

// upsertAccess: an update with an upsert statement needs insert too.
func upsertAccess(req *request) []mongoauth.Requirement {
	coll, _ := req.first().StringValueOK()
	v, err := req.cmd.LookupErr("updates")
	if err != nil {
		return nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	for _, st := range vals {
		if d, ok := st.DocumentOK(); ok {
			if u, err := d.LookupErr("upsert"); err == nil && truthy(u) {
				return []mongoauth.Requirement{collReq(req.db, coll, "insert")}
			}
		}
	}
	return nil
}

// getMoreAccess: find on the cursor's namespace; a cursor of
// listCollections or listIndexes ("$cmd.<command>") needs what its command
// needed, which only its owner had (the cursor is the owner's alone).
func getMoreAccess(req *request) []mongoauth.Requirement {
	v, err := req.cmd.LookupErr("collection")
	if err != nil {
		return nil
	}
	coll, ok := v.StringValueOK()
	if !ok || strings.HasPrefix(coll, "$cmd.") {
		return nil
	}
	return []mongoauth.Requirement{collReq(req.db, coll, "find")}
}

// renameCollectionAccess: renameCollectionSameDB on both namespaces within
// one database; across databases find and dropCollection on the source,
// insert and createIndex on the target; dropCollection on the target with
// dropTarget.
func renameCollectionAccess(req *request) []mongoauth.Requirement {
	from, _ := req.first().StringValueOK()
	var to string
	if v, err := req.cmd.LookupErr("to"); err == nil {
		to, _ = v.StringValueOK()
	}
	fdb, fcoll, _ := strings.Cut(from, ".")
	tdb, tcoll, _ := strings.Cut(to, ".")
	var out []mongoauth.Requirement
	if fdb == tdb {
		out = append(out, collReq(fdb, fcoll, "renameCollectionSameDB"), collReq(tdb, tcoll, "renameCollectionSameDB"))
	} else {
		out = append(out, collReq(fdb, fcoll, "find", "dropCollection"), collReq(tdb, tcoll, "insert", "createIndex"))
	}
	if v, err := req.cmd.LookupErr("dropTarget"); err == nil && truthy(v) {
		out = append(out, collReq(tdb, tcoll, "dropCollection"))
	}
	return out
}

// rolesFieldAccess: action on the database of every role the field names.
func rolesFieldAccess(field, action string) func(req *request) []mongoauth.Requirement {
	return func(req *request) []mongoauth.Requirement {
		v, err := req.cmd.LookupErr(field)
		if err != nil {
			return nil
		}
		roles, err := parseRoleNames(field, v, req.db)
		if err != nil {
			return nil
		}
		var out []mongoauth.Requirement
		for _, r := range roles {
			out = append(out, dbReq(r.DB, action))
		}
		return out
	}
}

// updateUserAccess: changePassword for pwd, changeCustomData for
// customData, grantRole and revokeRole for roles.
func updateUserAccess(req *request) []mongoauth.Requirement {
	out := []mongoauth.Requirement{}
	if _, err := req.cmd.LookupErr("pwd"); err == nil {
		out = append(out, dbReq(req.db, "changePassword"))
	}
	if _, err := req.cmd.LookupErr("customData"); err == nil {
		out = append(out, dbReq(req.db, "changeCustomData"))
	}
	if _, err := req.cmd.LookupErr("roles"); err == nil {
		out = append(out, dbReq(req.db, "revokeRole"))
		out = append(out, rolesFieldAccess("roles", "grantRole")(req)...)
	}
	if len(out) == 0 {
		out = append(out, dbReq(req.db, "changePassword"))
	}
	return out
}

// infoAccess: action on the database of every user or role an
// info command names; on the cluster for forAllDBs.
func infoAccess(action string) func(req *request) []mongoauth.Requirement {
	return func(req *request) []mongoauth.Requirement {
		v := req.first()
		if d, ok := v.DocumentOK(); ok {
			if f, err := d.LookupErr("forAllDBs"); err == nil && truthy(f) {
				return []mongoauth.Requirement{clusterReq(action)}
			}
		}
		var vals []bson.RawValue
		if arr, ok := v.ArrayOK(); ok {
			vals, _ = arr.Values()
		} else {
			vals = []bson.RawValue{v}
		}
		out := []mongoauth.Requirement{dbReq(req.db, action)}
		for _, x := range vals {
			if d, ok := x.DocumentOK(); ok {
				if db, err := d.LookupErr("db"); err == nil {
					if s, ok := db.StringValueOK(); ok && s != req.db {
						out = append(out, dbReq(s, action))
					}
				}
			}
		}
		return out
	}
}

var (
	usersInfoAccess = infoAccess("viewUser")
	rolesInfoAccess = infoAccess("viewRole")
)

// replSetAccess: the replica set commands' cluster actions.
func replSetAccess(name string) access {
	switch name {
	case "replSetGetStatus":
		return need(onCluster, "replSetGetStatus")
	case "replSetGetConfig":
		return need(onCluster, "replSetGetConfig")
	case "replSetInitiate", "replSetReconfig":
		return need(onCluster, "replSetConfigure")
	case "replSetUpdatePosition", "replSetGetRBID":
		return need(onCluster, "internal")
	}
	return need(onCluster, "replSetStateChange")
}

// changeStreamAccess: changeStream and find on what the stream watches: the
// collection, the database, or (allChangesForCluster) every database.
func changeStreamAccess(db, coll string, isColl bool, spec bson.RawValue) []mongoauth.Requirement {
	if isColl {
		return []mongoauth.Requirement{collReq(db, coll, "changeStream", "find")}
	}
	if d, ok := spec.DocumentOK(); ok {
		if all, ok := d.Lookup("allChangesForCluster").BooleanOK(); ok && all {
			return []mongoauth.Requirement{collReq("", "", "changeStream", "find")}
		}
	}
	return []mongoauth.Requirement{dbReq(db, "changeStream", "find")}
}
