package acl

import (
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultUser is the name of the user every connection starts as.
const DefaultUser = "default"

// Account is a user as connections see it: the user's current rules,
// swapped whole when they change, and whether the user was deleted.
type Account struct {
	user    atomic.Pointer[User]
	deleted atomic.Bool
}

// User returns the account's current rules.
func (a *Account) User() *User { return a.user.Load() }

// Deleted reports whether the user was deleted (ACL DELUSER, ACL LOAD).
func (a *Account) Deleted() bool { return a.deleted.Load() }

// Registry holds the users by name. The default user always exists.
type Registry struct {
	Catalog *Catalog
	mu      sync.Mutex
	users   map[string]*Account
}

// NewDefaultUser returns the default user as Redis starts it: on, nopass,
// every command, key and channel.
func NewDefaultUser(cat *Catalog) *User {
	u := NewUser(DefaultUser, false)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		if err := u.Apply(cat, op); err != nil {
			panic("acl: default user: " + err.Error())
		}
	}
	u.sanitize = 1
	return u
}

// NewRegistry returns a registry holding only the default user.
func NewRegistry(cat *Catalog) *Registry {
	r := &Registry{Catalog: cat, users: make(map[string]*Account)}
	a := &Account{}
	a.user.Store(NewDefaultUser(cat))
	r.users[DefaultUser] = a
	return r
}

// Account returns the account of a user, or nil.
func (r *Registry) Account(name string) *Account {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.users[name]
}

// Default returns the default user's account.
func (r *Registry) Default() *Account { return r.Account(DefaultUser) }

// Get returns a user's current rules, or nil.
func (r *Registry) Get(name string) *User {
	if a := r.Account(name); a != nil {
		return a.User()
	}
	return nil
}

// Update applies rules to a user, creating it when it does not exist
// (off, allowing nothing, with all channels when allChannels), and
// returns the previous rules (nil for a new user) and the new ones. A
// refused rule changes nothing.
func (r *Registry) Update(name string, ops []string, allChannels bool) (old, updated *User, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.users[name]
	base := NewUser(name, allChannels)
	if a != nil {
		old = a.User()
		base = old
	}
	n, err := base.ApplyAll(r.Catalog, ops)
	if err != nil {
		return nil, nil, err
	}
	if a == nil {
		a = &Account{}
		r.users[name] = a
	}
	a.user.Store(n)
	return old, n, nil
}

// Delete removes users (never the default one) and returns the accounts
// removed.
func (r *Registry) Delete(names ...string) []*Account {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Account
	for _, n := range names {
		if a := r.users[n]; a != nil && n != DefaultUser {
			delete(r.users, n)
			a.deleted.Store(true)
			out = append(out, a)
		}
	}
	return out
}

// Names returns the user names in order.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.users))
	for n := range r.users {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Users returns every user's current rules, in name order.
func (r *Registry) Users() []*User {
	var out []*User
	for _, n := range r.Names() {
		if u := r.Get(n); u != nil {
			out = append(out, u)
		}
	}
	return out
}

// Replace swaps the whole set of users for users (ACL LOAD): the default
// user keeps its account and takes its new rules (or its initial ones
// when users has none); every other account is deleted and a new one
// made. It returns the accounts deleted.
func (r *Registry) Replace(users []*User) []*Account {
	r.mu.Lock()
	defer r.mu.Unlock()
	def := r.users[DefaultUser]
	var gone []*Account
	for n, a := range r.users {
		if n != DefaultUser {
			a.deleted.Store(true)
			gone = append(gone, a)
		}
	}
	r.users = map[string]*Account{DefaultUser: def}
	newDef := NewDefaultUser(r.Catalog)
	for _, u := range users {
		if u.Name == DefaultUser {
			newDef = u
			continue
		}
		a := &Account{}
		a.user.Store(u)
		r.users[u.Name] = a
	}
	def.user.Store(newDef)
	return gone
}
