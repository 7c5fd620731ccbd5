package resp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/mayfly/mayfly/internal/acl"
	"github.com/mayfly/mayfly/internal/kv"
)

func aclSub(name string, arity int, admin bool, summary, complexity string, h func(*cmdCtx) error) *command {
	flags, cats := "noscript loading stale", "slow"
	if admin {
		flags, cats = "admin noscript loading stale", "admin slow dangerous"
	}
	return def(cmdSpec{
		Name: "acl|" + name, Arity: arity, Flags: flags, ACL: cats, Group: "server", Since: "6.0.0",
		Summary: summary, Complexity: complexity, Handler: h,
	})
}

var cmdACL = func() *command {
	c := container("acl", "", "slow", "server", "6.0.0", "A container for Access List Control commands",
		aclSub("cat", -2, false, "List the ACL categories or the commands inside a category",
			"O(1) since the categories and commands are a fixed set.", aclCat),
		aclSub("deluser", -3, true, "Remove the specified ACL users and the associated rules",
			"O(1) amortized time considering the typical user.", aclDelUser),
		aclSub("dryrun", -4, true, "Returns whether the user can execute the given command without executing the command.",
			"O(1).", aclDryRun),
		aclSub("genpass", -2, false, "Generate a pseudorandom secure password to use for ACL users", "O(1)", aclGenPass),
		aclSub("getuser", 3, true, "Get the rules for a specific ACL user",
			"O(N). Where N is the number of password, command and pattern rules that the user has.", aclGetUser),
		aclSub("list", 2, true, "List the current ACL rules in ACL config file format",
			"O(N). Where N is the number of configured users.", aclList),
		aclSub("load", 2, true, "Reload the ACLs from the configured ACL file",
			"O(N). Where N is the number of configured users.", aclLoad),
		aclSub("log", -2, true, "List latest events denied because of ACLs in place",
			"O(N) with N being the number of entries shown.", aclLog),
		aclSub("save", 2, true, "Save the current ACL rules in the configured ACL file",
			"O(N). Where N is the number of configured users.", aclSave),
		aclSub("setuser", -3, true, "Modify or create the rules for a specific ACL user",
			"O(N). Where N is the number of rules provided.", aclSetUser),
		aclSub("users", 2, true, "List the username of all the configured ACL rules",
			"O(N). Where N is the number of configured users.", aclUsers),
		aclSub("whoami", 2, false, "Return the name of the user associated to the current connection", "O(1)",
			func(x *cmdCtx) error {
				x.w.BulkString(x.c.userName())
				return nil
			}),
		helpCmd("acl", "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"CAT [<category>]", "    List all commands that belong to <category>, or all command categories",
			"    when no category is specified.",
			"DELUSER <username> [<username> ...]", "    Delete a list of users.",
			"DRYRUN <username> <command> [<arg> ...]",
			"    Returns whether the user can execute the given command without executing the command.",
			"GETUSER <username>", "    Get the user's details.",
			"GENPASS [<bits>]", "    Generate a secure 256-bit user password. The optional `bits` argument can",
			"    be used to specify a different size.",
			"LIST", "    Show users details in config file format.",
			"LOAD", "    Reload users from the ACL file.",
			"LOG [<count> | RESET]", "    Show the ACL log entries.",
			"SAVE", "    Save the current config to the ACL file.",
			"SETUSER <username> <attribute> [<attribute> ...]", "    Create or modify a user with the specified attributes.",
			"USERS", "    List all the registered usernames.",
			"WHOAMI", "    Return the current connection username."),
	)
	c.subs["help"].since = "6.0.0"
	c.subs["help"].summary = "Show helpful text about the different subcommands"
	c.subs["help"].group = "server"
	return c
}()

func aclSetUser(x *cmdCtx) error {
	name := string(x.args[2])
	if strings.ContainsAny(name, " \t\r\n\x00") {
		return replyErr("ERR Usernames can't contain spaces or null characters")
	}
	ops := make([]string, 0, len(x.args)-3)
	for _, a := range x.args[3:] {
		ops = append(ops, string(a))
	}
	st := x.s.acl
	old, updated, err := st.reg.Update(name, ops, x.s.cfg.aclPubsubAll())
	if err != nil {
		return replyErr("ERR " + err.Error())
	}
	if old != nil {
		x.s.killSubscribersDenied(x.c, st.reg.Account(name), updated)
	}
	x.w.OK()
	return nil
}

func aclDelUser(x *cmdCtx) error {
	names := make([]string, 0, len(x.args)-2)
	for _, a := range x.args[2:] {
		if string(a) == acl.DefaultUser {
			return replyErr("ERR The 'default' user cannot be removed")
		}
		names = append(names, string(a))
	}
	gone := x.s.acl.reg.Delete(names...)
	x.s.killAccounts(x.c, gone...)
	x.w.Int(int64(len(gone)))
	return nil
}

func aclGetUser(x *cmdCtx) error {
	st := x.s.acl
	u := st.reg.Get(string(x.args[2]))
	if u == nil {
		x.w.Null()
		return nil
	}
	cat := st.reg.Catalog
	w := x.w
	w.Map(6)
	w.BulkString("flags")
	flags := u.Flags()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	pw := u.Passwords()
	w.Array(len(pw))
	for _, p := range pw {
		w.BulkString(p)
	}
	writeSelector(w, cat, u.Root())
	w.BulkString("selectors")
	sels := u.Selectors()
	w.Array(len(sels))
	for _, s := range sels {
		w.Map(3)
		writeSelector(w, cat, s)
	}
	return nil
}

// writeSelector writes a selector's commands, keys and channels fields.
func writeSelector(w *Writer, cat *acl.Catalog, s *acl.Selector) {
	w.BulkString("commands")
	w.BulkString(s.CommandsRule(cat))
	w.BulkString("keys")
	w.BulkString(s.KeysRule())
	w.BulkString("channels")
	w.BulkString(s.ChannelsList())
}

func aclList(x *cmdCtx) error {
	st := x.s.acl
	users := st.reg.Users()
	x.w.Array(len(users))
	for _, u := range users {
		x.w.BulkString("user " + u.Name + " " + u.Describe(st.reg.Catalog))
	}
	return nil
}

func aclUsers(x *cmdCtx) error {
	names := x.s.acl.reg.Names()
	x.w.Array(len(names))
	for _, n := range names {
		x.w.BulkString(n)
	}
	return nil
}

func aclCat(x *cmdCtx) error {
	if len(x.args) > 3 {
		return aclSyntaxError(x)
	}
	if len(x.args) == 2 {
		x.w.Array(len(acl.Categories))
		for _, c := range acl.Categories {
			x.w.BulkString(c)
		}
		return nil
	}
	names, ok := x.s.acl.reg.Catalog.InCategory(string(x.args[2]))
	if !ok {
		return replyErr(fmt.Sprintf("ERR Unknown category '%.128s'", x.args[2]))
	}
	x.w.Array(len(names))
	for _, n := range names {
		x.w.BulkString(n)
	}
	return nil
}

// aclSyntaxError is Redis's reply to a subcommand given the wrong
// arguments.
func aclSyntaxError(x *cmdCtx) error {
	return replyErr(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try ACL HELP.", x.args[1]))
}

func aclGenPass(x *cmdCtx) error {
	if len(x.args) > 3 {
		return aclSyntaxError(x)
	}
	bits := int64(256)
	if len(x.args) == 3 {
		n, ok := kv.ParseInt(x.args[2])
		if !ok {
			return replyErr("ERR value is not an integer or out of range")
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		return replyErr("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		return fmt.Errorf("resp: ACL GENPASS: %w", err)
	}
	x.w.BulkString(hex.EncodeToString(buf)[:chars])
	return nil
}

func aclLog(x *cmdCtx) error {
	if len(x.args) > 3 {
		return aclSyntaxError(x)
	}
	st := x.s.acl
	count := 10
	if len(x.args) == 3 {
		if argEq(x.args[2], "reset") {
			st.log.Reset()
			x.w.OK()
			return nil
		}
		n, ok := kv.ParseInt(x.args[2])
		if !ok {
			return replyErr("ERR value is not an integer or out of range")
		}
		count = int(max(min(n, 1<<30), 0))
	}
	entries := st.log.Entries(count)
	now := x.s.opts.Now()
	w := x.w
	w.Array(len(entries))
	for _, e := range entries {
		w.Map(10)
		w.BulkString("count")
		w.Int(e.Count)
		w.BulkString("reason")
		w.BulkString(e.Reason)
		w.BulkString("context")
		w.BulkString(e.Context)
		w.BulkString("object")
		w.BulkString(e.Object)
		w.BulkString("username")
		w.BulkString(e.Username)
		w.BulkString("age-seconds")
		w.Double(float64(now.Sub(e.Updated).Milliseconds()) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.Client)
		w.BulkString("entry-id")
		w.Int(e.ID)
		w.BulkString("timestamp-created")
		w.Int(e.Created.UnixMilli())
		w.BulkString("timestamp-last-updated")
		w.Int(e.Updated.UnixMilli())
	}
	return nil
}

func aclDryRun(x *cmdCtx) error {
	st := x.s.acl
	u := st.reg.Get(string(x.args[2]))
	if u == nil {
		return replyErr(fmt.Sprintf("ERR User '%s' not found", x.args[2]))
	}
	args := x.args[3:]
	cmd, err := x.s.lookupCommand(args)
	if err != nil {
		var re replyErr
		if errors.As(err, &re) && strings.HasPrefix(string(re), "ERR wrong number") {
			return err
		}
		return replyErr(fmt.Sprintf("ERR Command '%s' not found", args[0]))
	}
	r, pos := st.check(u, cmd, args)
	switch r {
	case acl.OK:
		x.w.OK()
	case acl.DeniedCommand:
		x.w.BulkString(fmt.Sprintf("This user has no permissions to run the '%s' command", cmd.name))
	case acl.DeniedKey:
		x.w.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' key", args[pos]))
	default:
		x.w.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' channel", args[pos]))
	}
	return nil
}

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func aclLoad(x *cmdCtx) error {
	if x.s.acl.file == "" {
		return replyErr(errNoACLFile)
	}
	if err := x.s.loadACLFile(); err != nil {
		return replyErr("ERR " + err.Error())
	}
	x.w.OK()
	return nil
}

func aclSave(x *cmdCtx) error {
	if x.s.acl.file == "" {
		return replyErr(errNoACLFile)
	}
	if err := x.s.saveACLFile(); err != nil {
		x.s.log.Warn("resp: ACL SAVE", "err", err)
		return replyErr("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
	}
	x.w.OK()
	return nil
}
