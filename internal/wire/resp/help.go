package resp

// helpCategories are the ACL categories Redis 7.0 gives the HELP
// subcommand of a container, in its order, when not only @slow.
var helpCategories = map[string]string{
	"client": "slow connection", "command": "slow connection", "function": "slow scripting",
	"object": "keyspace slow", "script": "slow scripting",
}

// helpCmd builds the HELP subcommand of a container.
func helpCmd(container, head string, lines ...string) *command {
	cats := "slow"
	if c, ok := helpCategories[container]; ok {
		cats = c
	}
	return def(cmdSpec{
		Name: container + "|help", Arity: 2, Flags: "loading stale",
		ACL: cats, Group: "generic", Since: "6.2.0",
		Summary:    "Returns helpful text about the different subcommands.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			all := append([]string{head}, lines...)
			all = append(all, "HELP", "    Prints this help.")
			x.w.Array(len(all))
			for _, l := range all {
				x.w.Simple(l)
			}
			return nil
		},
	})
}
