package resp

// The CLIENT subcommands of client-side caching (tracker).

var cmdClientTracking = def(cmdSpec{
	Name: "client|tracking", Arity: -3, Flags: "noscript loading stale",
	ACL: "slow connection", Group: "connection", Since: "6.0.0",
	Summary:    "Enable or disable server assisted client side caching support",
	Complexity: "O(1). Some options may introduce additional complexity.",
	Handler:    clientTracking,
})

// clientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST]
// [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP]: the options are parsed whole
// first (a syntax error or an unknown redirection target refuses the
// command, ON or OFF), then checked against each other and the client's
// mode.
func clientTracking(x *cmdCtx) error {
	var o trackOptions
	args := x.args
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch {
		case argEq(args[j], "redirect") && more:
			j++
			if o.redirect != 0 {
				return errRedirTwice
			}
			id, err := parseInt(args[j])
			if err != nil {
				return err
			}
			if id <= 0 || x.s.clientByID(uint64(id)) == nil {
				return errRedirNotFound
			}
			o.redirect = uint64(id)
		case argEq(args[j], "bcast"):
			o.bcast = true
		case argEq(args[j], "optin"):
			o.optin = true
		case argEq(args[j], "optout"):
			o.optout = true
		case argEq(args[j], "noloop"):
			o.noloop = true
		case argEq(args[j], "prefix") && more:
			j++
			o.prefixes = append(o.prefixes, string(args[j]))
		default:
			return errSyntax
		}
	}
	switch {
	case argEq(args[2], "on"):
		if err := x.s.tracking.enable(x.c, o); err != nil {
			return err
		}
	case argEq(args[2], "off"):
		if x.c.track != nil {
			x.s.tracking.disable(x.c)
		}
	default:
		return errSyntax
	}
	x.w.OK()
	return nil
}

var cmdClientCaching = def(cmdSpec{
	Name: "client|caching", Arity: 3, Flags: "noscript loading stale",
	ACL: "slow connection", Group: "connection", Since: "6.0.0",
	Summary:    "Instruct the server about tracking or not keys in the next request",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if x.c.track == nil || !x.s.tracking.state(x.c).on {
			return errCachingMode
		}
		var err error
		switch {
		case argEq(x.args[2], "yes"):
			err = x.s.tracking.setCaching(x.c, true)
		case argEq(x.args[2], "no"):
			err = x.s.tracking.setCaching(x.c, false)
		default:
			return errSyntax
		}
		if err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})

var cmdClientGetredir = def(cmdSpec{
	Name: "client|getredir", Arity: 2, Flags: "noscript loading stale",
	ACL: "slow connection", Group: "connection", Since: "6.0.0",
	Summary:    "Get tracking notifications redirection client ID if any",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		st := x.s.tracking.state(x.c)
		if !st.on {
			x.w.Int(-1)
			return nil
		}
		x.w.Int(int64(st.redirect))
		return nil
	},
})

var cmdClientTrackinginfo = def(cmdSpec{
	Name: "client|trackinginfo", Arity: 2, Flags: "noscript loading stale",
	ACL: "slow connection", Group: "connection", Since: "6.2.0",
	Summary:    "Return information about server assisted client side caching for the current connection",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		st := x.s.tracking.state(x.c)
		flags := []string{"off"}
		if st.on {
			flags[0] = "on"
		}
		if st.bcast {
			flags = append(flags, "bcast")
		}
		if st.optin {
			flags = append(flags, "optin")
			if st.caching {
				flags = append(flags, "caching-yes")
			}
		}
		if st.optout {
			flags = append(flags, "optout")
			if st.caching {
				flags = append(flags, "caching-no")
			}
		}
		if st.noloop {
			flags = append(flags, "noloop")
		}
		if st.broken {
			flags = append(flags, "broken_redirect")
		}
		x.w.Map(3)
		x.w.BulkString("flags")
		x.w.Set(len(flags))
		for _, f := range flags {
			x.w.BulkString(f)
		}
		x.w.BulkString("redirect")
		if st.on {
			x.w.Int(int64(st.redirect))
		} else {
			x.w.Int(-1)
		}
		x.w.BulkString("prefixes")
		x.w.Array(len(st.prefixes))
		for _, p := range st.prefixes {
			x.w.BulkString(p)
		}
		return nil
	},
})
