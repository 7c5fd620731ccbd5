package resp

import "crypto/subtle"

var cmdAuth = def("auth", -2, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "fast connection", "connection", "1.0.0",
	"Authenticates the connection.", "O(N) where N is the number of passwords defined for the user", func(x *cmdCtx) error {
		if len(x.args) > 3 {
			return errSyntax
		}
		pass := x.s.cfg.requirePass()
		if len(x.args) == 2 && pass == "" {
			return replyErr("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		}
		user := []byte("default")
		if len(x.args) == 3 {
			user = x.args[1]
		}
		if err := checkAuth(x, user, x.args[len(x.args)-1], pass); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})

// checkAuth authenticates the default user, the only one.
func checkAuth(x *cmdCtx, user, password []byte, pass string) error {
	if string(user) != "default" || (pass != "" && subtle.ConstantTimeCompare(password, []byte(pass)) != 1) {
		return errWrongPass
	}
	x.c.authed = true
	return nil
}
