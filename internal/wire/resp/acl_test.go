package resp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// userClient is a go-redis client that authenticates as user.
func (e *env) userClient(user, pass string) *redis.Client {
	e.t.Helper()
	c := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 3, PoolSize: 1, DisableIdentity: true,
		Username: user, Password: pass, MaxRetries: -1, ReadTimeout: 5 * time.Second})
	e.t.Cleanup(func() { c.Close() })
	return c
}

func mustDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(t.Context(), args...).Result()
	if err != nil && err != redis.Nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

func wantErr(t *testing.T, c *redis.Client, want string, args ...any) {
	t.Helper()
	err := c.Do(t.Context(), args...).Err()
	if err == nil || err.Error() != want {
		t.Errorf("%v: err %v, want %q", args, err, want)
	}
}

func TestACLUserPermissions(t *testing.T) {
	e := newEnv(t)
	admin := e.client(3)
	mustDo(t, admin, "acl", "setuser", "alice", "on", ">pw", "~foo*", "%R~ro*", "%W~wo*", "+get", "+set", "+client|list", "+acl|whoami")
	a := e.userClient("alice", "pw")
	if got := mustDo(t, a, "acl", "whoami"); got != "alice" {
		t.Errorf("WHOAMI = %v", got)
	}
	mustDo(t, a, "set", "foo1", "v")
	mustDo(t, a, "get", "ro1")
	mustDo(t, a, "set", "wo1", "v")
	keyErr := "NOPERM this user has no permissions to access one of the keys used as arguments"
	wantErr(t, a, keyErr, "get", "bar")
	wantErr(t, a, keyErr, "get", "wo1")
	wantErr(t, a, keyErr, "set", "ro1", "v")
	wantErr(t, a, keyErr, "set", "wo1", "v", "get") // SET ... GET reads the key too
	wantErr(t, a, "NOPERM this user has no permissions to run the 'del' command", "del", "foo1")
	wantErr(t, a, "NOPERM this user has no permissions to run the 'config|get' command", "config", "get", "x")
	if list := mustDo(t, a, "client", "list").(string); !strings.Contains(list, " user=alice ") || !strings.Contains(list, " user=default ") {
		t.Errorf("CLIENT LIST: %s", list)
	}
	for name, want := range map[string]string{"acl_access_denied_key": "4", "acl_access_denied_cmd": "2", "acl_access_denied_channel": "0", "acl_access_denied_auth": "0"} {
		if got := infoField(t, e, "stats", name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	log := mustDo(t, admin, "acl", "log", "1").([]any)
	if len(log) != 1 {
		t.Fatalf("ACL LOG 1: %v", log)
	}
	entry := log[0].(map[any]any)
	for k, want := range map[string]any{"count": int64(1), "reason": "command", "context": "toplevel", "object": "config|get", "username": "alice"} {
		if entry[k] != want {
			t.Errorf("log entry %s = %v, want %v", k, entry[k], want)
		}
	}
	for _, k := range []string{"age-seconds", "client-info", "entry-id", "timestamp-created", "timestamp-last-updated"} {
		if _, ok := entry[k]; !ok {
			t.Errorf("log entry has no %s", k)
		}
	}
	// The same refusal again counts in the same entry.
	wantErr(t, a, keyErr, "get", "bar")
	all := mustDo(t, admin, "acl", "log").([]any)
	if len(all) != 5 || all[0].(map[any]any)["count"] != int64(2) || all[0].(map[any]any)["object"] != "bar" {
		t.Errorf("ACL LOG: %v", all)
	}
	mustDo(t, admin, "acl", "log", "reset")
	if n := len(mustDo(t, admin, "acl", "log").([]any)); n != 0 {
		t.Errorf("ACL LOG after RESET has %d entries", n)
	}
}

func TestACLGetUserAndList(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	mustDo(t, c, "acl", "setuser", "bob", "on", ">secret", "~k*", "&ch", "+@read", "-get", "(%W~w*", "+set)")
	h := sha256.Sum256([]byte("secret"))
	hash := hex.EncodeToString(h[:])
	u := mustDo(t, c, "acl", "getuser", "bob").(map[any]any)
	if f := u["flags"].([]any); len(f) != 1 || f[0] != "on" {
		t.Errorf("flags %v", f)
	}
	if p := u["passwords"].([]any); len(p) != 1 || p[0] != hash {
		t.Errorf("passwords %v, want the SHA-256 %s", p, hash)
	}
	if u["commands"] != "-@all +@read -get" || u["keys"] != "~k*" || u["channels"] != "&ch" {
		t.Errorf("root selector %v %v %v", u["commands"], u["keys"], u["channels"])
	}
	sel := u["selectors"].([]any)
	if len(sel) != 1 {
		t.Fatalf("selectors %v", sel)
	}
	s := sel[0].(map[any]any)
	if s["commands"] != "-@all +set" || s["keys"] != "%W~w*" || s["channels"] != "" {
		t.Errorf("selector %v", s)
	}
	list := mustDo(t, c, "acl", "list").([]any)
	want := []any{"user bob on #" + hash + " ~k* resetchannels &ch -@all +@read -get (%W~w* resetchannels -@all +set)",
		"user default on nopass sanitize-payload ~* &* +@all"}
	if len(list) != 2 || list[0] != want[0] || list[1] != want[1] {
		t.Errorf("ACL LIST = %q", list)
	}
	if users := mustDo(t, c, "acl", "users").([]any); len(users) != 2 || users[0] != "bob" {
		t.Errorf("ACL USERS = %v", users)
	}
	if v := mustDo(t, c, "acl", "getuser", "nosuch"); v != nil {
		t.Errorf("GETUSER of no user = %v", v)
	}
	b := e.userClient("bob", "secret")
	mustDo(t, b, "set", "w1", "v")
	wantErr(t, b, "NOPERM this user has no permissions to access one of the keys used as arguments", "set", "k1", "v")
	// DRYRUN says the same without running anything.
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"set", "w1", "v"}, "OK"},
		{[]any{"set", "k1", "v"}, "This user has no permissions to access the 'k1' key"},
		{[]any{"get", "k1"}, "This user has no permissions to run the 'get' command"},
		{[]any{"publish", "other", "m"}, "This user has no permissions to run the 'publish' command"},
	} {
		got := mustDo(t, c, append([]any{"acl", "dryrun", "bob"}, tc.args...)...)
		if got != tc.want {
			t.Errorf("DRYRUN %v = %v, want %q", tc.args, got, tc.want)
		}
	}
	wantErr(t, c, "ERR User 'nosuch' not found", "acl", "dryrun", "nosuch", "get", "x")
	wantErr(t, c, "ERR Command 'nosuch' not found", "acl", "dryrun", "bob", "nosuch")
}

func TestACLSetUserErrors(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"bogus"}, "ERR Error in ACL SETUSER modifier 'bogus': Syntax error"},
		{[]any{"+nosuch"}, "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]any{"+@nosuch"}, "ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL"},
		{[]any{"allkeys", "~x"}, "ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{[]any{"<nope"}, "ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the user does not exist"},
		{[]any{"#abc"}, "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{[]any{"(+get"}, "ERR Unmatched parenthesis in acl selector starting at '(+get'."},
	} {
		wantErr(t, c, tc.want, append([]any{"acl", "setuser", "u"}, tc.args...)...)
	}
	if v := mustDo(t, c, "acl", "getuser", "u"); v != nil {
		t.Errorf("a refused SETUSER created the user: %v", v)
	}
	wantErr(t, c, "ERR Usernames can't contain spaces or null characters", "acl", "setuser", "a b")
	wantErr(t, c, "ERR The 'default' user cannot be removed", "acl", "deluser", "default")
	wantErr(t, c, "ERR Unknown category 'nosuch'", "acl", "cat", "nosuch")
	wantErr(t, c, "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096", "acl", "genpass", "0")
	if p := mustDo(t, c, "acl", "genpass").(string); len(p) != 64 {
		t.Errorf("GENPASS = %q", p)
	}
	if p := mustDo(t, c, "acl", "genpass", "5").(string); len(p) != 2 {
		t.Errorf("GENPASS 5 = %q", p)
	}
	if cats := mustDo(t, c, "acl", "cat").([]any); len(cats) != 21 || cats[0] != "keyspace" {
		t.Errorf("ACL CAT = %v", cats)
	}
	inRead := mustDo(t, c, "acl", "cat", "read").([]any)
	found := false
	for _, n := range inRead {
		found = found || n == "get"
	}
	if !found {
		t.Errorf("ACL CAT read has no get: %v", inRead)
	}
	wantErr(t, c, "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.", "acl", "save")
	if help := mustDo(t, c, "acl", "help").([]any); len(help) < 10 {
		t.Errorf("ACL HELP: %v", help)
	}
}

func TestACLAuth(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	wantErr(t, c, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "auth", "x")
	mustDo(t, c, "acl", "setuser", "carol", "on", ">cpw", "+@all", "~*")
	mustDo(t, c, "auth", "carol", "cpw")
	if got := mustDo(t, c, "acl", "whoami"); got != "carol" {
		t.Errorf("WHOAMI after AUTH = %v", got)
	}
	wrong := "WRONGPASS invalid username-password pair or user is disabled."
	wantErr(t, c, wrong, "auth", "carol", "bad")
	wantErr(t, c, wrong, "auth", "nosuch", "x")
	mustDo(t, c, "acl", "setuser", "carol", "off")
	wantErr(t, c, wrong, "auth", "carol", "cpw")
	if got := infoField(t, e, "stats", "acl_access_denied_auth"); got != "3" {
		t.Errorf("acl_access_denied_auth = %s", got)
	}
	entry := mustDo(t, c, "acl", "log", "1").([]any)[0].(map[any]any)
	if entry["reason"] != "auth" || entry["object"] != "auth" || entry["username"] != "carol" {
		t.Errorf("auth log entry %v", entry)
	}
	// HELLO 3 AUTH.
	mustDo(t, c, "acl", "setuser", "carol", "on")
	r := e.client(3)
	hello := mustDo(t, r, "hello", "3", "auth", "carol", "cpw").(map[any]any)
	if hello["proto"] != int64(3) {
		t.Errorf("HELLO 3 AUTH: %v", hello)
	}
	wantErr(t, r, wrong, "hello", "3", "auth", "carol", "bad")
}

func TestACLRequirePass(t *testing.T) {
	e := newEnv(t, func(o *resp.Options) { o.RequirePass = "first" })
	c := e.userClient("", "first")
	h := sha256.Sum256([]byte("first"))
	u := mustDo(t, c, "acl", "getuser", "default").(map[any]any)
	if p := u["passwords"].([]any); len(p) != 1 || p[0] != hex.EncodeToString(h[:]) {
		t.Errorf("default user's passwords %v", p)
	}
	anon := redis.NewClient(&redis.Options{Addr: e.addr, DisableIdentity: true, MaxRetries: -1})
	defer anon.Close()
	if err := anon.Get(t.Context(), "k").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Errorf("GET before AUTH: %v", err)
	}
	mustDo(t, c, "config", "set", "requirepass", "second")
	if err := anon.Do(t.Context(), "auth", "first").Err(); err == nil {
		t.Error("the old requirepass still authenticates")
	}
	if err := anon.Do(t.Context(), "auth", "default", "second").Err(); err != nil {
		t.Errorf("AUTH default with the new requirepass: %v", err)
	}
	mustDo(t, c, "config", "set", "requirepass", "")
	u = mustDo(t, c, "acl", "getuser", "default").(map[any]any)
	if f := u["flags"].([]any); len(f) < 2 || f[1] != "nopass" {
		t.Errorf("flags after requirepass \"\": %v", f)
	}
	fresh := redis.NewClient(&redis.Options{Addr: e.addr, DisableIdentity: true, MaxRetries: -1})
	defer fresh.Close()
	if err := fresh.Get(t.Context(), "k").Err(); err != redis.Nil {
		t.Errorf("GET with no requirepass: %v", err)
	}
}

func TestACLDelUserKillsConnections(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	mustDo(t, c, "acl", "setuser", "dave", "on", "nopass", "+@all", "~*", "&*")
	d := e.userClient("dave", "x").Conn()
	defer d.Close()
	if err := d.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	mustDo(t, c, "client", "kill", "user", "dave")
	if err := d.Ping(t.Context()).Err(); err == nil {
		t.Error("CLIENT KILL USER left the connection open")
	}
	wantErr(t, c, "ERR No such user 'nosuch'", "client", "kill", "user", "nosuch")
	d2 := e.userClient("dave", "x").Conn()
	defer d2.Close()
	if err := d2.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	if n := mustDo(t, c, "acl", "deluser", "dave", "nosuch"); n != int64(1) {
		t.Errorf("DELUSER = %v", n)
	}
	if err := d2.Ping(t.Context()).Err(); err == nil {
		t.Error("DELUSER left the user's connection open")
	}
}

func TestACLChannels(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	mustDo(t, c, "acl", "setuser", "pub", "on", "nopass", "+@all", "~*", "resetchannels", "&news.*")
	p := e.userClient("pub", "x")
	mustDo(t, p, "publish", "news.1", "m")
	chErr := "NOPERM this user has no permissions to access one of the channels used as arguments"
	wantErr(t, p, chErr, "publish", "other", "m")
	mustDo(t, p, "spublish", "news.2", "m") // a shard channel is checked as a channel, not a key
	wantErr(t, p, chErr, "spublish", "other", "m")
	sub := p.Subscribe(t.Context(), "other")
	if _, err := sub.Receive(t.Context()); err == nil || err.Error() != chErr {
		t.Errorf("SUBSCRIBE other: %v", err)
	}
	sub.Close()
	if got := infoField(t, e, "stats", "acl_access_denied_channel"); got != "3" {
		t.Errorf("acl_access_denied_channel = %s", got)
	}
	// A subscriber whose channel is revoked is disconnected.
	s := e.userClient("pub", "x").Subscribe(t.Context(), "news.a")
	defer s.Close()
	if _, err := s.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	mustDo(t, c, "acl", "setuser", "pub", "resetchannels", "&sports")
	if list := mustDo(t, c, "client", "list").(string); strings.Contains(list, "sub=1") {
		t.Errorf("the subscriber of a revoked channel is still listed:\n%s", list)
	}
	// A pattern subscriber whose pattern is revoked, and one of a user
	// that loses allchannels, are disconnected too; one whose pattern is
	// kept literally stays.
	for _, tc := range []struct {
		before, after []any
		pattern       string
		kept          bool
	}{
		{[]any{"resetchannels", "&bar:*"}, []any{"resetchannels"}, "bar:*", false},
		{[]any{"allchannels"}, []any{"resetchannels"}, "foo", false},
		{[]any{"resetchannels", "&bar:*"}, []any{"&other"}, "bar:*", true},
	} {
		mustDo(t, c, append([]any{"acl", "setuser", "pub"}, tc.before...)...)
		ps := e.userClient("pub", "x").PSubscribe(t.Context(), tc.pattern)
		if _, err := ps.Receive(t.Context()); err != nil {
			t.Fatal(err)
		}
		mustDo(t, c, append([]any{"acl", "setuser", "pub"}, tc.after...)...)
		list := mustDo(t, c, "client", "list").(string)
		if strings.Contains(list, "psub=1") != tc.kept {
			t.Errorf("%v then %v: pattern subscriber kept %v, want %v:\n%s", tc.before, tc.after, !tc.kept, tc.kept, list)
		}
		ps.Close()
	}
}

func TestACLScriptsAndExec(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	mustDo(t, c, "acl", "setuser", "lua", "on", "nopass", "+eval", "+get", "+multi", "+exec", "+set", "~allowed*")
	l := e.userClient("lua", "x")
	err := l.Do(t.Context(), "eval", "return redis.call('get', 'secret')", "0").Err()
	if err == nil || !strings.Contains(err.Error(), "The user executing the script can't access at least one of the keys mentioned in the command arguments") {
		t.Errorf("script touching a refused key: %v", err)
	}
	err = l.Do(t.Context(), "eval", "return redis.call('del', 'allowed1')", "0").Err()
	if err == nil || !strings.Contains(err.Error(), "The user executing the script can't run this command or subcommand") {
		t.Errorf("script running a refused command: %v", err)
	}
	entry := mustDo(t, c, "acl", "log", "1").([]any)[0].(map[any]any)
	if entry["context"] != "lua" || entry["object"] != "del" {
		t.Errorf("script log entry %v", entry)
	}
	// A command queued in MULTI is checked again at EXEC.
	conn := l.Conn()
	defer conn.Close()
	mustDoConn := func(args ...any) any {
		v, err := conn.Do(t.Context(), args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	mustDoConn("multi")
	mustDoConn("set", "allowed2", "v")
	mustDo(t, c, "acl", "setuser", "lua", "-set")
	_, err = conn.Do(t.Context(), "exec").Slice()
	if err == nil || !strings.HasPrefix(err.Error(), "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call.") {
		t.Errorf("EXEC of a command revoked since: %v", err)
	}
}

func TestACLFileSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(path, []byte("user eve on >epw ~e* +get\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *resp.Options) { o.ACLFile = path })
	if err := e.srv.LoadACL(); err != nil {
		t.Fatal(err)
	}
	c := e.client(3)
	if got := mustDo(t, c, "config", "get", "aclfile").(map[any]any)["aclfile"]; got != path {
		t.Errorf("CONFIG GET aclfile = %v", got)
	}
	ev := e.userClient("eve", "epw").Conn()
	defer ev.Close()
	if err := ev.Get(t.Context(), "e1").Err(); err != redis.Nil {
		t.Fatal(err)
	}
	mustDo(t, c, "acl", "setuser", "frank", "on", ">fpw", "+@all", "~*")
	mustDo(t, c, "acl", "save")
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "user frank on #") || strings.Contains(string(data), "fpw") {
		t.Errorf("saved file: %v\n%s", err, data)
	}
	if err := os.WriteFile(path, []byte("user eve on >other ~e* +get\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustDo(t, c, "acl", "load")
	if users := mustDo(t, c, "acl", "users").([]any); len(users) != 2 || users[1] != "eve" {
		t.Errorf("users after LOAD: %v", users)
	}
	if err := ev.Get(t.Context(), "e1").Err(); err == nil || err == redis.Nil {
		t.Error("ACL LOAD left a connection of a replaced user open")
	}
	if err := os.WriteFile(path, []byte("user eve bogus\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantErr(t, c, "ERR "+path+":1: Syntax error. ", "acl", "load")
}

func TestACLKeysOfMovableCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(3)
	mustDo(t, c, "acl", "setuser", "mk", "on", "nopass", "+@all", "%R~r*", "%W~w*")
	m := e.userClient("mk", "x")
	mustDo(t, c, "xadd", "r1", "1-1", "f", "v")
	mustDo(t, c, "xadd", "w1", "1-1", "f", "v")
	keyErr := "NOPERM this user has no permissions to access one of the keys used as arguments"
	mustDo(t, m, "xread", "streams", "r1", "0")
	wantErr(t, m, keyErr, "xread", "streams", "r1", "w1", "0", "0") // the second stream needs read access too
	mustDo(t, m, "zunionstore", "w2", "1", "r9")
	wantErr(t, m, keyErr, "zunionstore", "r2", "1", "r9")
	wantErr(t, m, keyErr, "zunionstore", "w2", "1", "w9")
	mustDo(t, c, "rpush", "r3", "1")
	mustDo(t, m, "sort", "r3", "store", "w3")
	wantErr(t, m, keyErr, "sort", "r3", "store", "r4")
}
