package resp

import (
	"fmt"

	"github.com/mayfly/mayfly/internal/acl"
)

// Contexts of ACL log entries.
const (
	aclCtxTop   = "toplevel"
	aclCtxMulti = "multi"
	aclCtxLua   = "lua"
)

// checkACL checks that the client's user may run cmd with args; a refusal
// is counted, logged in the ACL log and answered with Redis's NOPERM
// error.
func (c *client) checkACL(cmd *command, args [][]byte, ctx string) error {
	u := c.acct().User()
	if u.Unrestricted() {
		return nil
	}
	r, pos := c.s.acl.check(u, cmd, args)
	if r == acl.OK {
		return nil
	}
	c.s.acl.refused(c, u, cmd, args, r, pos, ctx)
	switch r {
	case acl.DeniedCommand:
		return replyErr(fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.name))
	case acl.DeniedKey:
		return replyErr("NOPERM this user has no permissions to access one of the keys used as arguments")
	default:
		return replyErr("NOPERM this user has no permissions to access one of the channels used as arguments")
	}
}

// scriptACLError is the error a script's redis.call gets for a refusal.
func scriptACLError(r acl.Result) string {
	switch r {
	case acl.DeniedCommand:
		return "The user executing the script can't run this command or subcommand"
	case acl.DeniedKey:
		return "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	case acl.DeniedChannel:
		return "The user executing the script can't publish to the channel mentioned in the command"
	}
	return "The user executing the script lacking the permissions for the command"
}

// check checks a call of cmd by u.
func (st *aclState) check(u *acl.User, cmd *command, args [][]byte) (acl.Result, int) {
	info := st.byCmd[cmd]
	if info == nil || info.ac == nil {
		return acl.DeniedCommand, 0
	}
	var buf [4]acl.KeyRef
	keys := buf[:0]
	if u.NeedsKeys() {
		keys = aclKeyRefs(cmd, info, args, keys)
	}
	var chans []acl.ChannelRef
	if u.NeedsChannels() {
		chans = aclChannelRefs(cmd, args)
	}
	return u.Check(info.ac, args, keys, chans)
}

// refused counts and logs a refusal.
func (st *aclState) refused(c *client, u *acl.User, cmd *command, args [][]byte, r acl.Result, pos int, ctx string) {
	e := acl.LogEntry{Context: ctx, Username: u.Name, Client: c.describe()}
	switch r {
	case acl.DeniedCommand:
		st.deniedCmd.Add(1)
		e.Reason, e.Object = "command", cmd.name
	case acl.DeniedKey:
		st.deniedKey.Add(1)
		e.Reason, e.Object = "key", string(args[pos])
	case acl.DeniedChannel:
		st.deniedChannel.Add(1)
		e.Reason, e.Object = "channel", string(args[pos])
	}
	st.log.Add(e, c.s.opts.Now(), c.s.cfg.aclLogMaxLen())
}

// aclKeyRefs appends to dst the key arguments of a call with the access
// each needs, found as COMMAND GETKEYS finds them.
func aclKeyRefs(cmd *command, info *aclCommand, args [][]byte, dst []acl.KeyRef) []acl.KeyRef {
	if info.notKey {
		return dst
	}
	if info.ranged {
		if cmd.first <= 0 {
			return dst
		}
		last := cmd.last
		if last < 0 {
			last += len(args)
		}
		for i := cmd.first; i <= last && i < len(args); i += max(cmd.step, 1) {
			dst = append(dst, acl.KeyRef{Pos: i, Perm: keyPerm(cmd, info.specs, info.known, args, i)})
		}
		return dst
	}
	idx, ok := commandKeyIndexes(cmd, args)
	if !ok {
		return dst
	}
	if info.geo {
		idx = geoRadiusKeyIndexes(args, geoRadiusOptionsAt[cmd.name])
	}
	for _, i := range idx {
		dst = append(dst, acl.KeyRef{Pos: i, Perm: keyPerm(cmd, info.specs, info.known, args, i)})
	}
	return dst
}

// keyPerm is the access the key at args[i] needs.
func keyPerm(cmd *command, specs []keyAccessSpec, known bool, args [][]byte, i int) acl.Perm {
	switch cmd.name {
	case "set":
		// SET reads its key only with GET.
		for _, a := range args[3:] {
			if argEq(a, "get") {
				return acl.ReadWrite
			}
		}
		return acl.Write
	case "bitfield":
		if bitfieldReadOnly(args) {
			return acl.Read
		}
		return acl.ReadWrite
	}
	if !known {
		if hasFlag(cmd, "readonly") {
			return acl.Read
		}
		return acl.ReadWrite
	}
	// A keyword spec covers the keys after its keyword (XREAD's STREAMS,
	// SORT's STORE): the nearest keyword before the key decides.
	for j := i - 1; j >= 1 && hasKeywordSpec(specs); j-- {
		for _, sp := range specs {
			if sp.keyword != "" && argEq(args[j], sp.keyword) {
				return sp.perm
			}
		}
	}
	best := -1
	var perm acl.Perm
	for _, sp := range specs {
		if sp.keyword == "" && sp.begin > 0 && sp.begin <= i && sp.begin > best {
			best, perm = sp.begin, sp.perm
		}
	}
	return perm
}

// aclNotKeys are the commands whose key arguments Redis flags as not keys
// (shard channels, which only pick the cluster slot).
var aclNotKeys = map[string]bool{"spublish": true, "ssubscribe": true, "sunsubscribe": true}

// aclChannelRefs returns the channel arguments of a call: PUBLISH's
// channel, SUBSCRIBE's channels and PSUBSCRIBE's patterns (UNSUBSCRIBE
// and PUNSUBSCRIBE are always allowed).
func aclChannelRefs(cmd *command, args [][]byte) []acl.ChannelRef {
	var out []acl.ChannelRef
	switch cmd.name {
	case "publish", "spublish":
		if len(args) > 1 {
			out = append(out, acl.ChannelRef{Pos: 1})
		}
	case "subscribe", "ssubscribe", "psubscribe":
		for i := 1; i < len(args); i++ {
			out = append(out, acl.ChannelRef{Pos: i, Pattern: cmd.name == "psubscribe"})
		}
	}
	return out
}

// aclAuthEntry is the ACL log entry of a failed authentication.
func aclAuthEntry(c *client, user, object, ctx string) acl.LogEntry {
	return acl.LogEntry{Reason: "auth", Context: ctx, Object: object, Username: user, Client: c.describe()}
}

// recheckACL checks a command queued in MULTI again when EXEC runs it:
// the user's rules may have changed since.
func (c *client) recheckACL(cmd *command, args [][]byte) error {
	u := c.acct().User()
	if u.Unrestricted() {
		return nil
	}
	r, pos := c.s.acl.check(u, cmd, args)
	if r == acl.OK {
		return nil
	}
	c.s.acl.refused(c, u, cmd, args, r, pos, aclCtxMulti)
	reason := "no permission to execute the command or subcommand"
	switch r {
	case acl.DeniedKey:
		reason = "no permission to touch the specified keys"
	case acl.DeniedChannel:
		reason = "no permission to access one of the channels used as arguments"
	}
	return replyErr("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason)
}

// bitfieldReadOnly reports whether a BITFIELD call only reads (GET and
// OVERFLOW operations, well formed), as Redis decides its key's access.
func bitfieldReadOnly(args [][]byte) bool {
	for i := 2; i < len(args); i++ {
		rem := len(args) - i - 1
		switch {
		case argEq(args[i], "get") && rem >= 2:
			i += 2
		case argEq(args[i], "overflow") && rem >= 1:
			i++
		default:
			return false
		}
	}
	return true
}

// fullReadAccess reports whether the client's user may run the call and
// read every key (what SORT's BY and GET patterns need, since they name
// keys the call does not show).
func (c *client) fullReadAccess(cmd *command, args [][]byte) bool {
	u := c.acct().User()
	if u.Unrestricted() {
		return true
	}
	info := c.s.acl.byCmd[cmd]
	return info != nil && info.ac != nil && u.CheckUnrestricted(info.ac, args, aclKeyRefs(cmd, info, args, nil), acl.Read)
}

// hasKeywordSpec reports whether one of specs starts at a keyword.
func hasKeywordSpec(specs []keyAccessSpec) bool {
	for _, sp := range specs {
		if sp.keyword != "" {
			return true
		}
	}
	return false
}
