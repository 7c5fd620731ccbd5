package resp

import (
	"net"
	"time"
)

// authenticate logs the client in as user with password (AUTH, HELLO
// AUTH). A failure is counted, logged (address and user, never the
// password) and entered in the ACL log, and its reply is delayed when the
// client's address keeps failing (authDelays).
func authenticate(x *cmdCtx, user, password []byte) error {
	s, c := x.s, x.c
	host := clientHost(c)
	a := s.acl.reg.Account(string(user))
	if a != nil && a.User().CheckPassword(password) {
		c.setAccount(a)
		s.acl.fails.succeeded(host)
		return nil
	}
	s.acl.deniedAuth.Add(1)
	ctx := aclCtxTop
	if c.multi != nil {
		ctx = aclCtxMulti
	}
	s.acl.log.Add(aclAuthEntry(c, string(user), string(x.args[0]), ctx), s.opts.Now(), s.cfg.aclLogMaxLen())
	d := s.acl.fails.failed(host, time.Now())
	s.log.Warn("resp: authentication failed", "client", c.id, "addr", c.nc.RemoteAddr().String(),
		"user", string(user), "delay", d)
	if d > c.authDelay {
		c.authDelay = d
	}
	return errWrongPass
}

// clientHost is the client's address without its port.
func clientHost(c *client) string {
	addr := c.nc.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// waitAuthDelay waits, before the replies of a chunk go out, the delay a
// failed authentication in it earned (not while holding the store: the
// chunk is committed first), cut short when the server stops.
func (c *client) waitAuthDelay() {
	d := c.authDelay
	if d <= 0 {
		return
	}
	c.authDelay = 0
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.s.stop:
	}
}
