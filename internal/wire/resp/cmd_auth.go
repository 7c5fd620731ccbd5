package resp

var cmdAuth = def(cmdSpec{
	Name: "auth", Arity: -2, Flags: "noscript loading stale fast no_auth allow_busy",
	ACL: "fast connection", Group: "connection", Since: "1.0.0",
	Summary:    "Authenticates the connection.",
	Complexity: "O(N) where N is the number of passwords defined for the user",
	Handler: func(x *cmdCtx) error {
		if len(x.args) > 3 {
			return errSyntax
		}
		if len(x.args) == 2 && x.s.acl.reg.Default().User().NoPass() {
			return replyErr("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		}
		user := []byte("default")
		if len(x.args) == 3 {
			user = x.args[1]
		}
		if err := authenticate(x, user, x.args[len(x.args)-1]); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
