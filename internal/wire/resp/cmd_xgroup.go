package resp

import "github.com/mayfly/mayfly/internal/kv"

// XGROUP's subcommands, as Redis's xgroupCommand: the options of CREATE
// and SETID are parsed first, then the key must exist (unless CREATE has
// MKSTREAM) and, but for CREATE and DESTROY, the group.
var cmdXGroup = container("xgroup", "", "slow", "stream", "5.0.0", "A container for consumer groups commands",
	def(cmdSpec{
		Name: "xgroup|create", Arity: -5, Flags: "write denyoom", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "write stream slow", Group: "stream", Since: "5.0.0",
		Summary: "Create a consumer group.", Complexity: "O(1)",
		Handler: xgroupCreate,
	}),
	def(cmdSpec{
		Name: "xgroup|setid", Arity: -5, Flags: "write", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "write stream slow", Group: "stream", Since: "5.0.0",
		Summary: "Set a consumer group to an arbitrary last delivered ID value.", Complexity: "O(1)",
		Handler: xgroupSetID,
	}),
	def(cmdSpec{
		Name: "xgroup|destroy", Arity: 4, Flags: "write", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "write stream slow", Group: "stream", Since: "5.0.0",
		Summary:    "Destroy a consumer group.",
		Complexity: "O(N) where N is the number of entries in the group's pending entries list (PEL).",
		Handler: func(x *cmdCtx) error {
			ok, err := x.tx.XGroupDestroy(x.args[2], x.args[3])
			if err != nil {
				return streamErr(err, x.args[2], x.args[3])
			}
			if !ok {
				x.w.Int(0)
				return nil
			}
			x.w.Int(1)
			serveBlocked(x, x.args[2]) // its blocked readers get NOGROUP
			return nil
		},
	}),
	def(cmdSpec{
		Name: "xgroup|createconsumer", Arity: 5, Flags: "write denyoom", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "write stream slow", Group: "stream", Since: "6.2.0",
		Summary: "Create a consumer in a consumer group.", Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			ok, err := x.tx.XGroupCreateConsumer(x.args[2], x.args[3], x.args[4])
			if err != nil {
				return streamErr(err, x.args[2], x.args[3])
			}
			x.w.Int(boolInt(ok))
			return nil
		},
	}),
	def(cmdSpec{
		Name: "xgroup|delconsumer", Arity: 5, Flags: "write", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "write stream slow", Group: "stream", Since: "5.0.0",
		Summary: "Delete a consumer from a consumer group.", Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			n, err := x.tx.XGroupDelConsumer(x.args[2], x.args[3], x.args[4])
			if err != nil {
				return streamErr(err, x.args[2], x.args[3])
			}
			x.w.Int(n)
			return nil
		},
	}),
	streamHelp("xgroup", "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter."),
)

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// streamHelp builds the HELP subcommand of XGROUP and XINFO.
func streamHelp(container, head string, lines ...string) *command {
	c := helpCmd(container, head, lines...)
	c.group, c.since, c.acl = "stream", "5.0.0", []string{"@stream", "@slow"}
	return c
}

// errXGroupSyntax is the reply to options XGROUP does not know.
func errXGroupSyntax(x *cmdCtx) error {
	return replyErr("ERR unknown subcommand or wrong number of arguments for '" + string(x.args[1]) + "'. Try XGROUP HELP.")
}

// xgroupOptions parses the options of CREATE (MKSTREAM, ENTRIESREAD) and
// SETID (ENTRIESREAD) after the ID.
func xgroupOptions(x *cmdCtx, create bool) (mkstream bool, entriesRead int64, err error) {
	entriesRead = -1
	for i := 5; i < len(x.args); i++ {
		switch {
		case create && argEq(x.args[i], "mkstream"):
			mkstream = true
		case argEq(x.args[i], "entriesread") && i+1 < len(x.args):
			if entriesRead, err = parseInt(x.args[i+1]); err != nil {
				return false, 0, err
			}
			if entriesRead < 0 && entriesRead != -1 {
				return false, 0, replyErr("ERR value for ENTRIESREAD must be positive or -1")
			}
			i++
		default:
			return false, 0, errXGroupSyntax(x)
		}
	}
	return mkstream, entriesRead, nil
}

func xgroupCreate(x *cmdCtx) error {
	mkstream, entriesRead, err := xgroupOptions(x, true)
	if err != nil {
		return err
	}
	key, group := x.args[2], x.args[3]
	ok, err := x.tx.CheckType(key, kv.TypeStream)
	if err != nil {
		return err
	}
	if !ok && !mkstream {
		return errXGroupNoKey
	}
	if len(x.args) > 8 {
		return errXGroupSyntax(x)
	}
	var id kv.StreamID
	useLast := string(x.args[4]) == "$"
	if !useLast {
		if id, err = parseStrictID(x.args[4]); err != nil {
			return err
		}
	}
	if err := x.tx.XGroupCreate(key, group, id, useLast, mkstream, entriesRead); err != nil {
		return streamErr(err, key, group)
	}
	x.w.OK()
	return nil
}

func xgroupSetID(x *cmdCtx) error {
	_, entriesRead, err := xgroupOptions(x, false)
	if err != nil {
		return err
	}
	key, group := x.args[2], x.args[3]
	if has, err := x.tx.XHasGroup(key, group); err != nil {
		return err
	} else if !has {
		if ok, _ := x.tx.CheckType(key, kv.TypeStream); !ok {
			return errXGroupNoKey
		}
		return errNoSuchGroup(key, group)
	}
	if len(x.args) != 5 && len(x.args) != 7 {
		return errXGroupSyntax(x)
	}
	var id kv.StreamID
	useLast := string(x.args[4]) == "$"
	if !useLast {
		var ok bool
		if id, _, ok = kv.ParseStreamID(x.args[4], 0, false, false); !ok {
			return errInvalidStreamID
		}
	}
	if err := x.tx.XGroupSetID(key, group, id, useLast, entriesRead); err != nil {
		return streamErr(err, key, group)
	}
	x.w.OK()
	return nil
}
