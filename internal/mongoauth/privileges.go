package mongoauth

import (
	"cmp"
	"slices"
	"strings"
)

// Resource is what a privilege applies to, as MongoDB's resource
// documents say it: {cluster: true}, {anyResource: true}, or {db,
// collection} where an empty db means every database and an empty
// collection every non-system collection (and, for a named db, the
// database itself).
type Resource struct {
	Cluster     bool
	AnyResource bool
	DB          string
	Collection  string
}

// ClusterResource is the cluster.
var ClusterResource = Resource{Cluster: true}

// DBResource is database db (and its non-system collections).
func DBResource(db string) Resource { return Resource{DB: db} }

// CollectionResource is collection coll of database db.
func CollectionResource(db, coll string) Resource { return Resource{DB: db, Collection: coll} }

// Privilege is a set of actions on a resource.
type Privilege struct {
	Resource Resource
	Actions  ActionSet
}

// Requirement is what a command needs: every action of Actions on a
// concrete resource (the cluster, a database, or a collection).
type Requirement = Privilege

// isSystem reports whether coll is a system collection, which only
// privileges naming it cover.
func isSystem(coll string) bool { return strings.HasPrefix(coll, "system.") }

// normalAnyDB returns the actions of the privileges on every database
// ({db: "", collection: ""}) that apply to database db: none for local
// and config, whose collections only privileges naming those databases
// (or anyResource) cover, as in MongoDB.
func (g *Grants) normalAnyDB(db string) ActionSet {
	if db == "local" || db == "config" {
		return ActionSet{}
	}
	return g.anyNormal
}

// Grants are the resolved privileges of an authenticated user: actions per
// resource pattern. The zero value grants nothing. Grants are immutable
// once built, so connections share them freely.
type Grants struct {
	cluster     ActionSet
	anyResource ActionSet
	anyNormal   ActionSet               // {db: "", collection: ""}
	db          map[string]ActionSet    // {db: x, collection: ""}
	ns          map[namespace]ActionSet // {db: x, collection: c}
	collAnyDB   map[string]ActionSet    // {db: "", collection: c}
}

type namespace struct{ db, coll string }

// add adds a privilege to the grants.
func (g *Grants) add(p Privilege) {
	r := p.Resource
	switch {
	case r.AnyResource:
		g.anyResource = g.anyResource.Union(p.Actions)
	case r.Cluster:
		g.cluster = g.cluster.Union(p.Actions)
	case r.DB == "" && r.Collection == "":
		g.anyNormal = g.anyNormal.Union(p.Actions)
	case r.Collection == "":
		g.db = addTo(g.db, r.DB, p.Actions)
	case r.DB == "":
		g.collAnyDB = addTo(g.collAnyDB, r.Collection, p.Actions)
	default:
		if g.ns == nil {
			g.ns = map[namespace]ActionSet{}
		}
		k := namespace{r.DB, r.Collection}
		g.ns[k] = g.ns[k].Union(p.Actions)
	}
}

func addTo(m map[string]ActionSet, k string, a ActionSet) map[string]ActionSet {
	if m == nil {
		m = map[string]ActionSet{}
	}
	m[k] = m[k].Union(a)
	return m
}

// On returns every action granted on a concrete resource: the cluster
// (r.Cluster), a database (r.Collection empty) or a collection.
func (g *Grants) On(r Resource) ActionSet {
	if g == nil {
		return ActionSet{}
	}
	s := g.anyResource
	switch {
	case r.Cluster:
		return s.Union(g.cluster)
	case r.Collection == "":
		return s.Union(g.normalAnyDB(r.DB)).Union(g.db[r.DB])
	}
	if !isSystem(r.Collection) {
		s = s.Union(g.normalAnyDB(r.DB)).Union(g.db[r.DB])
	}
	if len(g.ns) > 0 {
		s = s.Union(g.ns[namespace{r.DB, r.Collection}])
	}
	if len(g.collAnyDB) > 0 {
		s = s.Union(g.collAnyDB[r.Collection])
	}
	return s
}

// Allows reports whether every action of req is granted on its resource.
// The usual case, a database-wide privilege of a collection's database,
// is answered by one map lookup.
func (g *Grants) Allows(req Requirement) bool {
	if g == nil {
		return false
	}
	r := req.Resource
	if !r.Cluster && r.Collection != "" && !isSystem(r.Collection) && g.AllowsCollectionsOf(r.DB, req.Actions) {
		return true
	}
	return g.On(r).Contains(req.Actions)
}

// AllowsCollectionsOf reports whether actions are granted on every
// non-system collection of database db (by a privilege on db, on every
// database, or on anyResource): enough for a command on one of them.
func (g *Grants) AllowsCollectionsOf(db string, actions ActionSet) bool {
	if g == nil {
		return false
	}
	return g.anyResource.Union(g.normalAnyDB(db)).Union(g.db[db]).Contains(actions)
}

// AnyOnDB reports whether any action is granted on database db or one of
// its collections (listDatabases shows a user without the listDatabases
// action the databases it has privileges on).
func (g *Grants) AnyOnDB(db string) bool {
	if g == nil {
		return false
	}
	if !g.anyResource.Empty() || !g.normalAnyDB(db).Empty() || !g.db[db].Empty() || len(g.collAnyDB) > 0 {
		return true
	}
	for k, a := range g.ns {
		if k.db == db && !a.Empty() {
			return true
		}
	}
	return false
}

// Privileges returns the grants as privileges, one per resource pattern,
// in a stable order: cluster, anyResource, every database, then
// databases and collections by name.
func (g *Grants) Privileges() []Privilege {
	if g == nil {
		return nil
	}
	var out []Privilege
	if !g.cluster.Empty() {
		out = append(out, Privilege{ClusterResource, g.cluster})
	}
	if !g.anyResource.Empty() {
		out = append(out, Privilege{Resource{AnyResource: true}, g.anyResource})
	}
	if !g.anyNormal.Empty() {
		out = append(out, Privilege{Resource{}, g.anyNormal})
	}
	for _, k := range sortedKeys(g.collAnyDB) {
		out = append(out, Privilege{Resource{Collection: k}, g.collAnyDB[k]})
	}
	for _, k := range sortedKeys(g.db) {
		out = append(out, Privilege{DBResource(k), g.db[k]})
	}
	nss := make([]namespace, 0, len(g.ns))
	for k := range g.ns {
		nss = append(nss, k)
	}
	slices.SortFunc(nss, func(a, b namespace) int {
		return cmp.Or(strings.Compare(a.db, b.db), strings.Compare(a.coll, b.coll))
	})
	for _, k := range nss {
		out = append(out, Privilege{CollectionResource(k.db, k.coll), g.ns[k]})
	}
	return out
}
