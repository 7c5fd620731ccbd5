package resp

var cmdObject = container("object", "", "slow", "generic", "2.2.3", "A container for object introspection commands.",
	def("object|encoding", 3, "readonly", 2, 2, 1, "keyspace read slow", "generic", "2.2.3",
		"Returns the internal encoding of a Redis object.", "O(1)", func(x *cmdCtx) error {
			enc, ok, err := x.tx.Encoding(x.args[2])
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.BulkString(enc)
			return nil
		}),
	def("object|freq", 3, "readonly", 2, 2, 1, "keyspace read slow", "generic", "4.0.0",
		"Returns the logarithmic access frequency counter of a Redis object.", "O(1)", func(x *cmdCtx) error {
			if _, ok, err := x.tx.Encoding(x.args[2]); err != nil || !ok {
				if err == nil {
					x.w.Null()
				}
				return err
			}
			return replyErr("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		}),
	def("object|refcount", 3, "readonly", 2, 2, 1, "keyspace read slow", "generic", "2.2.3",
		"Returns the reference count of a value of a key.", "O(1)", func(x *cmdCtx) error {
			_, ok, err := x.tx.Encoding(x.args[2])
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Int(1)
			return nil
		}),
	helpCmd("object", "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"ENCODING <key>", "    Return the kind of internal representation used in order to store the value", "    associated with a <key>.",
		"FREQ <key>", "    Return the access frequency index of the <key>. The returned integer is", "    proportional to the logarithm of the recorded access frequency of the key.",
		"REFCOUNT <key>", "    Return the number of references of the value associated with the specified", "    <key>."),
)
