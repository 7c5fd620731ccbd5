package resp

// helpCmd builds the HELP subcommand of a container.
func helpCmd(container, head string, lines ...string) *command {
	return def(container+"|help", 2, "loading stale", 0, 0, 0, "slow", "generic", "6.2.0",
		"Returns helpful text about the different subcommands.", "O(1)", func(x *cmdCtx) error {
			all := append([]string{head}, lines...)
			all = append(all, "HELP", "    Print this help.")
			x.w.Array(len(all))
			for _, l := range all {
				x.w.Simple(l)
			}
			return nil
		})
}
