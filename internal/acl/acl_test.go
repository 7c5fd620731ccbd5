package acl

import (
	"errors"
	"strings"
	"testing"
)

func testCatalog() *Catalog {
	return NewCatalog([]CommandSpec{
		{Name: "get", Categories: []string{"read", "string", "fast"}},
		{Name: "mget", Categories: []string{"read", "string", "fast"}},
		{Name: "set", Categories: []string{"write", "string", "slow"}},
		{Name: "del", Categories: []string{"keyspace", "write", "slow"}},
		{Name: "select", Categories: []string{"fast", "connection"}},
		{Name: "auth", Categories: []string{"fast", "connection"}, NoAuth: true},
		{Name: "publish", Categories: []string{"pubsub", "fast"}},
		{Name: "config", Categories: []string{"slow"}, Subs: []CommandSpec{
			{Name: "config|get", Categories: []string{"admin", "slow", "dangerous"}},
			{Name: "config|set", Categories: []string{"admin", "slow", "dangerous"}},
		}},
	})
}

func mustUser(t *testing.T, cat *Catalog, rules ...string) *User {
	t.Helper()
	u, err := NewUser("u", false).ApplyAll(cat, rules)
	if err != nil {
		t.Fatalf("ApplyAll(%q): %v", rules, err)
	}
	return u
}

func args(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

func TestRulesDescribe(t *testing.T) {
	cat := testCatalog()
	for _, tc := range []struct {
		rules []string
		want  string
	}{
		{nil, "off resetchannels -@all"},
		{[]string{"on", "nopass", "allkeys", "allchannels", "allcommands"}, "on nopass ~* &* +@all"},
		{[]string{"on", ">p1", ">p1", "~a*", "%R~r*", "%W~w*", "%RW~rw*", "+get"},
			"on #" + HashPassword([]byte("p1")) + " ~a* %R~r* %W~w* ~rw* resetchannels -@all +get"},
		{[]string{"+@all", "-set"}, "off resetchannels +@all -set"},
		{[]string{"+@write"}, "off resetchannels -@all +@write"},
		{[]string{"+@read"}, "off resetchannels -@all +@read"},
		{[]string{"+@all", "-@read"}, "off resetchannels +@all -@read"},
		{[]string{"+config|get"}, "off resetchannels -@all +config|get"},
		{[]string{"+config", "-config|set"}, "off resetchannels -@all +config -config|set"},
		{[]string{"+select|0"}, "off resetchannels -@all +select|0"},
		{[]string{"&ch*", "&ch*", "&x"}, "off resetchannels &ch* &x -@all"},
		{[]string{"(~x* +get)", "(+set"}, ""}, // error case handled below
		{[]string{"on", "(~x* +get)"}, "on resetchannels -@all (~x* resetchannels -@all +get)"},
		{[]string{"(~x*", "+get)", "clearselectors"}, "off resetchannels -@all"},
		{[]string{"on", ">a", "~k", "+get", "reset"}, "off sanitize-payload resetchannels -@all"},
		{[]string{">a", "nopass"}, "off nopass resetchannels -@all"},
		{[]string{">a", "<a"}, "off resetchannels -@all"},
		{[]string{"#" + strings.Repeat("a", 64), "resetpass"}, "off resetchannels -@all"},
		{[]string{"~a", "resetkeys", "~b"}, "off ~b resetchannels -@all"},
		{[]string{"%R~a", "~a"}, "off ~a resetchannels -@all"},
	} {
		u, err := NewUser("u", false).ApplyAll(cat, tc.rules)
		if tc.want == "" {
			var ue *UnmatchedError
			if !errors.As(err, &ue) {
				t.Errorf("%q: err %v, want an unmatched parenthesis", tc.rules, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.rules, err)
			continue
		}
		if got := u.Describe(cat); got != tc.want {
			t.Errorf("%q: Describe = %q, want %q", tc.rules, got, tc.want)
		}
		// The description rebuilds the same user.
		again, err := NewUser("u", false).ApplyAll(cat, strings.Fields(got(u, cat)))
		if err != nil || again.Describe(cat) != tc.want {
			t.Errorf("%q: rebuilt from its description: %v %q", tc.rules, err, again.Describe(cat))
		}
	}
}

func got(u *User, cat *Catalog) string { return u.Describe(cat) }

func TestRuleErrors(t *testing.T) {
	cat := testCatalog()
	for _, tc := range []struct {
		rules []string
		want  string
	}{
		{[]string{"bogus"}, "Error in ACL SETUSER modifier 'bogus': Syntax error"},
		{[]string{"+nosuch"}, "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]string{"-@nosuch"}, "Error in ACL SETUSER modifier '-@nosuch': Unknown command or category name in ACL"},
		{[]string{"+config|nosuch"}, "Error in ACL SETUSER modifier '+config|nosuch': Unknown command or category name in ACL"},
		{[]string{"+config|get|x"}, "Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"},
		{[]string{"+select|"}, "Error in ACL SETUSER modifier '+select|': Syntax error"},
		{[]string{"allkeys", "~x"}, "Error in ACL SETUSER modifier '~x': " + errKeysAfterAll},
		{[]string{"allchannels", "&x"}, "Error in ACL SETUSER modifier '&x': " + errChansAfterAll},
		{[]string{"<nope"}, "Error in ACL SETUSER modifier '<nope': " + errNoSuchPass},
		{[]string{"#abc"}, "Error in ACL SETUSER modifier '#abc': " + errBadHash},
		{[]string{"!" + strings.Repeat("A", 64)}, "Error in ACL SETUSER modifier '!" + strings.Repeat("A", 64) + "': " + errBadHash},
		{[]string{"%X~a"}, "Error in ACL SETUSER modifier '%X~a': Syntax error"},
		{[]string{"(+get", "bogus)"}, "Error in ACL SETUSER modifier '(+get bogus)': Syntax error"},
		{[]string{"(+get"}, "Unmatched parenthesis in acl selector starting at '(+get'."},
	} {
		_, err := NewUser("u", false).ApplyAll(cat, tc.rules)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err %v, want %q", tc.rules, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	cat := testCatalog()
	get, set, sel, auth, pub := cat.Lookup("get"), cat.Lookup("set"), cat.Lookup("select"), cat.Lookup("auth"), cat.Lookup("publish")
	cfgGet, cfgSet := cat.Lookup("config|get"), cat.Lookup("config|set")
	u := mustUser(t, cat, "+get", "+set", "%R~r*", "%W~w*", "~rw*", "&news.*", "+select|0", "+config|get", "(~other* +set)")
	for _, tc := range []struct {
		name string
		c    *Command
		args string
		keys []KeyRef
		want Result
		pos  int
	}{
		{"read a read key", get, "get r1", []KeyRef{{1, Read}}, OK, 0},
		{"read a write key", get, "get w1", []KeyRef{{1, Read}}, DeniedKey, 1},
		{"write a write key", set, "set w1 v", []KeyRef{{1, Write}}, OK, 0},
		{"read-write needs both", set, "set r1 v", []KeyRef{{1, ReadWrite}}, DeniedKey, 1},
		{"rw pattern", set, "set rw1 v", []KeyRef{{1, ReadWrite}}, OK, 0},
		{"second selector", set, "set other1 v", []KeyRef{{1, ReadWrite}}, OK, 0},
		{"no access needed", get, "get w1", []KeyRef{{1, 0}}, OK, 0},
		{"first arg allowed", sel, "select 0", nil, OK, 0},
		{"first arg refused", sel, "select 1", nil, DeniedCommand, 0},
		{"no_auth always", auth, "auth x", nil, OK, 0},
		{"subcommand allowed", cfgGet, "config get x", nil, OK, 0},
		{"subcommand refused", cfgSet, "config set x y", nil, DeniedCommand, 0},
	} {
		r, pos := u.Check(tc.c, args(tc.args), tc.keys, nil)
		if r != tc.want || pos != tc.pos {
			t.Errorf("%s: Check = %v at %d, want %v at %d", tc.name, r, pos, tc.want, tc.pos)
		}
	}
	u2 := mustUser(t, cat, "+publish", "&news.*", "+@all")
	if r, _ := u2.Check(pub, args("publish news.a m"), nil, []ChannelRef{{Pos: 1}}); r != OK {
		t.Errorf("publish to an allowed channel: %v", r)
	}
	if r, p := u2.Check(pub, args("publish other m"), nil, []ChannelRef{{Pos: 1}}); r != DeniedChannel || p != 1 {
		t.Errorf("publish to another channel: %v at %d", r, p)
	}
	if r, _ := u2.Check(pub, args("psubscribe news.*"), nil, []ChannelRef{{Pos: 1, Pattern: true}}); r != OK {
		t.Errorf("the rule's own pattern: %v", r)
	}
	if r, _ := u2.Check(pub, args("psubscribe news.a*"), nil, []ChannelRef{{Pos: 1, Pattern: true}}); r != DeniedChannel {
		t.Errorf("a narrower pattern is compared literally: %v", r)
	}
}

func TestPasswords(t *testing.T) {
	cat := testCatalog()
	u := mustUser(t, cat, "on", ">secret", "#"+HashPassword([]byte("other")))
	if !u.CheckPassword([]byte("secret")) || !u.CheckPassword([]byte("other")) || u.CheckPassword([]byte("nope")) {
		t.Error("password checks")
	}
	off := mustUser(t, cat, ">secret")
	if off.CheckPassword([]byte("secret")) {
		t.Error("a disabled user authenticated")
	}
	if np := mustUser(t, cat, "on", "nopass"); !np.CheckPassword([]byte("anything")) {
		t.Error("nopass refused a password")
	}
	for _, p := range u.Passwords() {
		if strings.Contains(p, "secret") || len(p) != 64 {
			t.Errorf("password kept as %q", p)
		}
	}
}

func TestRegistry(t *testing.T) {
	cat := testCatalog()
	r := NewRegistry(cat)
	if got := r.Get("default").Describe(cat); got != "on nopass sanitize-payload ~* &* +@all" {
		t.Errorf("default user: %q", got)
	}
	a := r.Default()
	if _, _, err := r.Update("default", []string{"resetpass", ">pw"}, false); err != nil {
		t.Fatal(err)
	}
	if a.User().NoPass() || !a.User().CheckPassword([]byte("pw")) {
		t.Error("the default account did not take the new rules")
	}
	if _, _, err := r.Update("x", []string{"bogus"}, false); err == nil || r.Get("x") != nil {
		t.Error("a refused rule created the user")
	}
	r.Update("x", []string{"on"}, true)
	if got := r.Get("x").Describe(cat); got != "on &* -@all" {
		t.Errorf("acl-pubsub-default allchannels: %q", got)
	}
	x := r.Account("x")
	if gone := r.Delete("x", "default", "nosuch"); len(gone) != 1 || !x.Deleted() {
		t.Errorf("Delete: %v", gone)
	}
	if names := r.Names(); len(names) != 1 || names[0] != "default" {
		t.Errorf("Names: %v", names)
	}
}

func TestFile(t *testing.T) {
	cat := testCatalog()
	users, err := ParseFile(cat, "f.acl", "user a on >p ~k* +get\n\nuser default on nopass ~* &* +@all\n", false)
	if err != nil || len(users) != 2 {
		t.Fatalf("ParseFile: %v %d", err, len(users))
	}
	text := FormatFile(cat, users)
	again, err := ParseFile(cat, "f.acl", text, false)
	if err != nil || FormatFile(cat, again) != text {
		t.Errorf("round trip: %v\n%s", err, text)
	}
	_, err = ParseFile(cat, "f.acl", "user a +nosuch\nnotuser b\nuser c bogus\n", false)
	want := "f.acl:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		"f.acl:2 should start with user keyword followed by the username. f.acl:3: Syntax error. "
	if err == nil || err.Error() != want {
		t.Errorf("errors: %v", err)
	}
}
