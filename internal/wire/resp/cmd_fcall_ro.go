package resp

var cmdFCallRO = def(cmdSpec{
	Name: "fcall_ro", Arity: -3, Flags: "readonly noscript stale skip_monitor no_mandatory_keys movablekeys",
	ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
	Summary:    "Invokes a read-only function.",
	Complexity: "Depends on the function that is executed.",
	Handler:    func(x *cmdCtx) error { return fcall(x, true) },
})
