package resp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/acl"
)

// aclState is the server's access control: the users, the ACL log, the
// counters of refusals INFO shows, and the delays of clients that keep
// failing to authenticate.
type aclState struct {
	reg   *acl.Registry
	log   acl.Log
	byCmd map[*command]*aclCommand
	file  string // aclfile; empty when none

	deniedAuth, deniedCmd, deniedKey, deniedChannel atomic.Int64
	fails                                           authDelays
}

// newACLState builds the ACL catalog from the command table and the
// default user, with requirepass as its password.
func newACLState(s *Server) *aclState {
	var specs []acl.CommandSpec
	for _, c := range s.cmds {
		specs = append(specs, aclSpec(c))
	}
	st := &aclState{reg: acl.NewRegistry(acl.NewCatalog(specs)), byCmd: make(map[*command]*aclCommand), file: s.opts.ACLFile}
	for _, c := range s.cmds {
		st.byCmd[c] = st.newACLCommand(c)
		for _, sub := range c.subs {
			st.byCmd[sub] = st.newACLCommand(sub)
		}
	}
	return st
}

// aclCommand is what a check needs to know of a command, looked up once.
type aclCommand struct {
	ac    *acl.Command
	specs []keyAccessSpec
	known bool // specs are Redis's; otherwise the access follows the flags
	// ranged: the keys are the command's first/last/step range; otherwise
	// they are found as COMMAND GETKEYS finds them.
	ranged bool
	notKey bool // its key arguments are shard channels (aclNotKeys)
	geo    bool
}

func (st *aclState) newACLCommand(c *command) *aclCommand {
	specs, known := keyAccessSpecs[c.name]
	_, keynum := keynumCommands[c.name]
	_, geo := geoRadiusOptionsAt[c.name]
	return &aclCommand{
		ac: st.reg.Catalog.Lookup(c.name), specs: specs, known: known,
		ranged: !keynum && !geo && !hasFlag(c, "movablekeys"), notKey: aclNotKeys[c.name], geo: geo,
	}
}

func aclSpec(c *command) acl.CommandSpec {
	sp := acl.CommandSpec{Name: c.name, NoAuth: c.has(flagNoAuth)}
	for _, a := range c.acl {
		sp.Categories = append(sp.Categories, strings.TrimPrefix(a, "@"))
	}
	for _, sub := range c.subs {
		sp.Subs = append(sp.Subs, aclSpec(sub))
	}
	return sp
}

// setRequirePass maps requirepass onto the default user as Redis does: its
// passwords are reset to this one, or to nopass when it is empty.
func (st *aclState) setRequirePass(pass string) {
	rule := "nopass"
	if pass != "" {
		rule = ">" + pass
	}
	if _, _, err := st.reg.Update(acl.DefaultUser, []string{"resetpass", rule}, false); err != nil {
		panic("resp: requirepass: " + err.Error())
	}
}

// loadFile replaces the users with those of the aclfile.
func (s *Server) loadACLFile() error {
	st := s.acl
	data, err := os.ReadFile(st.file)
	if err != nil {
		return fmt.Errorf("Error loading ACLs, opening file '%s': %s", st.file, pathErrText(err))
	}
	users, err := acl.ParseFile(st.reg.Catalog, st.file, string(data), s.cfg.aclPubsubAll())
	if err != nil {
		return err
	}
	gone := st.reg.Replace(users)
	s.killAccounts(nil, gone...)
	return nil
}

func pathErrText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// saveACLFile writes the users to the aclfile, through a temporary file
// renamed over it.
func (s *Server) saveACLFile() error {
	st := s.acl
	data := acl.FormatFile(st.reg.Catalog, st.reg.Users())
	tmp := st.file + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		return fmt.Errorf("resp: ACL SAVE: %w", err)
	}
	if err := os.Rename(tmp, st.file); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("resp: ACL SAVE: %w", err)
	}
	return nil
}

// killAccounts closes every connection authenticated as one of the
// accounts (the caller's own after its reply).
func (s *Server) killAccounts(self *client, accounts ...*acl.Account) {
	if len(accounts) == 0 {
		return
	}
	for _, c := range s.clientsSorted() {
		a := c.acct()
		for _, g := range accounts {
			if a == g {
				if c == self {
					c.closeNext = true
				} else {
					c.kill()
				}
			}
		}
	}
}

// killSubscribersDenied closes the connections of a user subscribed to a
// channel, shard channel or pattern its new rules no longer allow, as Redis does when ACL
// SETUSER narrows a user's channels.
func (s *Server) killSubscribersDenied(self *client, a *acl.Account, u *acl.User) {
	if !u.NeedsChannels() {
		return
	}
	for _, c := range s.clientsSorted() {
		if c.acct() != a || (c.subscriptions() == 0 && s.hub.shardCount(c) == 0) {
			continue
		}
		denied := false
		for _, ch := range append(s.hub.list(c, false), s.hub.listShard(c)...) {
			denied = denied || !u.AllowsChannel([]byte(ch), false)
		}
		for _, p := range s.hub.list(c, true) {
			denied = denied || !u.AllowsChannel([]byte(p), true)
		}
		if denied {
			if c == self {
				c.closeNext = true
			} else {
				c.kill()
			}
		}
	}
}

// acct returns the account the client is authenticated as (the default
// user's before AUTH).
func (c *client) acct() *acl.Account {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.account == nil {
		return c.s.acl.reg.Default()
	}
	return c.account
}

// userName is the name CLIENT LIST shows for the client.
func (c *client) userName() string { return c.acct().User().Name }

// setAccount makes the client authenticated as a.
func (c *client) setAccount(a *acl.Account) {
	c.mu.Lock()
	c.account = a
	c.authed = true
	c.mu.Unlock()
}

// defaultAuthed reports whether a new connection is authenticated at
// once: the default user is on and needs no password.
func (st *aclState) defaultAuthed() bool {
	u := st.reg.Default().User()
	return u.Enabled() && u.NoPass()
}

// Authentication failure delays: a client address whose authentication
// fails waits before its error, authDelayFirst after its second failure in
// a row, doubling with each further one up to authDelayMax; a success
// resets it. The first
// failure answers at once, so a mistyped password costs nothing.
const (
	authDelayFirst = 100 * time.Millisecond
	authDelayMax   = 5 * time.Second
	authDelayKeep  = 10 * time.Minute // failures older than this are forgotten
	authDelayHosts = 10000            // most addresses remembered
)

// authDelays counts consecutive authentication failures per client IP.
type authDelays struct {
	mu    sync.Mutex
	hosts map[string]*authFailures
}

type authFailures struct {
	n    int
	last time.Time
}

// failed records a failure of host at now and returns how long to wait
// before answering it.
func (d *authDelays) failed(host string, now time.Time) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hosts == nil {
		d.hosts = make(map[string]*authFailures)
	}
	f := d.hosts[host]
	if f == nil || now.Sub(f.last) > authDelayKeep {
		if len(d.hosts) >= authDelayHosts {
			for h, old := range d.hosts {
				if now.Sub(old.last) > authDelayKeep || len(d.hosts) >= authDelayHosts {
					delete(d.hosts, h)
				}
			}
		}
		f = &authFailures{}
		d.hosts[host] = f
	}
	f.n++
	f.last = now
	return authDelay(f.n)
}

// authDelay is the wait before answering the n-th failure in a row.
func authDelay(n int) time.Duration {
	if n < 2 {
		return 0
	}
	d := authDelayFirst
	for i := 2; i < n && d < authDelayMax; i++ {
		d *= 2
	}
	return min(d, authDelayMax)
}

// succeeded forgets the failures of host.
func (d *authDelays) succeeded(host string) {
	d.mu.Lock()
	delete(d.hosts, host)
	d.mu.Unlock()
}
