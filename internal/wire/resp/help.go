package resp

// helpCmd builds the HELP subcommand of a container.
func helpCmd(container, head string, lines ...string) *command {
	return def(cmdSpec{
		Name: container + "|help", Arity: 2, Flags: "loading stale",
		ACL: "slow", Group: "generic", Since: "6.2.0",
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
