package resp

// MODULE: mayfly loads no modules, so the list is empty, and loading or
// unloading one fails as it does in Redis for a module that cannot be
// loaded or is not loaded.
var cmdModule = container("module", "", "slow", "server", "4.0.0", "A container for module commands",
	def(cmdSpec{
		Name: "module|list", Arity: 2, Flags: "admin noscript",
		ACL: "admin slow dangerous", Group: "server", Since: "4.0.0",
		Summary:    "List all modules loaded by the server",
		Complexity: "O(N) where N is the number of loaded modules.",
		Handler: func(x *cmdCtx) error {
			x.w.Array(0)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "module|load", Arity: -3, Flags: "admin noscript no_async_loading",
		ACL: "admin slow dangerous", Group: "server", Since: "4.0.0",
		Summary:    "Load a module",
		Complexity: "O(1)",
		Handler:    func(*cmdCtx) error { return errModuleLoad },
	}),
	def(cmdSpec{
		Name: "module|loadex", Arity: -3, Flags: "admin noscript no_async_loading",
		ACL: "admin slow dangerous", Group: "server", Since: "7.0.0",
		Summary:    "Load a module with extended parameters",
		Complexity: "O(1)",
		Handler:    func(*cmdCtx) error { return errModuleLoad },
	}),
	def(cmdSpec{
		Name: "module|unload", Arity: 3, Flags: "admin noscript no_async_loading",
		ACL: "admin slow dangerous", Group: "server", Since: "4.0.0",
		Summary:    "Unload a module",
		Complexity: "O(1)",
		Handler: func(*cmdCtx) error {
			return replyErr("ERR Error unloading module: no such module with that name")
		},
	}),
	helpCmd("module", "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LIST", "    Return a list of loaded modules.",
		"LOAD <path> [<arg> ...]", "    Load a module library from <path>, passing to it any optional arguments.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]", "    Load a module library from <path>, while passing it module configurations and optional arguments.",
		"UNLOAD <name>", "    Unload a module."),
)

const errModuleLoad = replyErr("ERR Error loading the extension. Please check the server logs.")
