package resp

var cmdMemory = container("memory", "", "slow", "server", "4.0.0", "A container for memory diagnostics commands.",
	def(cmdSpec{
		Name: "memory|usage", Arity: -3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "read slow", Group: "server", Since: "4.0.0",
		Summary:    "Estimates the memory usage of a key.",
		Complexity: "O(N) where N is the number of samples.",
		Handler: func(x *cmdCtx) error {
			samples := int64(5)
			for j := 3; j < len(x.args); j++ {
				if !argEq(x.args[j], "samples") || j+1 >= len(x.args) {
					return errSyntax
				}
				n, err := parseInt(x.args[j+1])
				if err != nil {
					return err
				}
				if n < 0 {
					return errSyntax
				}
				samples = n
				j++
			}
			n, ok, err := x.tx.MemoryUsage(x.args[2], samples)
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Int(n)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "memory|purge", Arity: 2,
		ACL: "slow", Group: "server", Since: "4.0.0",
		Summary:    "Asks the allocator to release memory.",
		Complexity: "Depends on how much memory is allocated, could be slow",
		Handler: func(x *cmdCtx) error {
			x.w.OK()
			return nil
		},
	}),
	def(cmdSpec{
		Name: "memory|malloc-stats", Arity: 2,
		ACL: "slow", Group: "server", Since: "4.0.0",
		Summary:    "Returns the allocator statistics.",
		Complexity: "Depends on how much memory is allocated, could be slow",
		Handler: func(x *cmdCtx) error {
			x.w.Verbatim("Stats not supported for the current allocator")
			return nil
		},
	}),
	helpCmd("memory", "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
		"PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.",
		"USAGE <key> [SAMPLES <count>]", "    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all)."),
)
