package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHello = def(cmdSpec{
	Name: "hello", Arity: -1, Flags: "noscript loading stale fast no_auth allow_busy",
	ACL: "fast connection", Group: "connection", Since: "6.0.0",
	Summary:    "Handshakes with the Redis server.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ver := int64(0)
		next := 1
		if len(x.args) >= 2 {
			v, ok := kv.ParseInt(x.args[1])
			if !ok {
				return replyErr("ERR Protocol version is not an integer or out of range")
			}
			if v < 2 || v > 3 {
				return replyErr("NOPROTO unsupported protocol version")
			}
			ver = v
			next = 2
		}
		var user, pass, name []byte
		setName := false
		for j := next; j < len(x.args); j++ {
			more := len(x.args) - 1 - j
			switch {
			case argEq(x.args[j], "auth") && more >= 2:
				user, pass = x.args[j+1], x.args[j+2]
				j += 2
			case argEq(x.args[j], "setname") && more >= 1:
				name = x.args[j+1]
				if !validClientName(name) {
					return errClientName
				}
				setName = true
				j++
			default:
				return replyErr("ERR Syntax error in HELLO option '" + string(x.args[j]) + "'")
			}
		}
		if user != nil {
			if err := authenticate(x, user, pass); err != nil {
				return err
			}
		}
		if !x.c.authed {
			return replyErr("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		}
		if setName {
			x.c.mu.Lock()
			x.c.name = string(name)
			x.c.mu.Unlock()
		}
		if ver != 0 {
			x.c.setProto(int(ver))
		}
		w := x.w
		w.Map(7)
		w.BulkString("server")
		w.BulkString("redis")
		w.BulkString("version")
		w.BulkString(Version)
		w.BulkString("proto")
		w.Int(int64(w.Proto()))
		w.BulkString("id")
		w.Int(int64(x.c.id))
		w.BulkString("mode")
		w.BulkString("standalone")
		w.BulkString("role")
		w.BulkString("master")
		w.BulkString("modules")
		w.Array(0)
		return nil
	},
})
