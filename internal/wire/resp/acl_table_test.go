package resp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// tableCommand is one callable entry of COMMAND's reply: a command
// without subcommands, or a subcommand.
type tableCommand struct {
	name  string   // "get" or "config|get"
	arity int      // as COMMAND gives it
	flags []string // flags without the container's
	cats  []string // ACL categories, "@read"
	keyed bool     // has a key spec not flagged not_key
}

// commandTable walks COMMAND's reply.
func commandTable(t *testing.T, c *redis.Client) []tableCommand {
	t.Helper()
	var out []tableCommand
	var walk func(entry []any)
	walk = func(entry []any) {
		if subs, _ := entry[9].([]any); len(subs) > 0 {
			for _, s := range subs {
				walk(s.([]any))
			}
			return
		}
		tc := tableCommand{name: entry[0].(string), arity: int(entry[1].(int64))}
		for _, f := range entry[2].([]any) {
			tc.flags = append(tc.flags, f.(string))
		}
		for _, f := range entry[6].([]any) {
			tc.cats = append(tc.cats, f.(string))
		}
		specs, _ := entry[8].([]any)
		for _, sp := range specs {
			flags, _ := sp.(map[any]any)["flags"].([]any)
			tc.keyed = tc.keyed || !slices.Contains(flags, any("not_key"))
		}
		out = append(out, tc)
	}
	for _, e := range mustDo(t, c, "command").([]any) {
		walk(e.([]any))
	}
	if len(out) < 200 {
		t.Fatalf("COMMAND walked only %d commands", len(out))
	}
	return out
}

// baseArgs is a call of tc with the fewest arguments its arity allows,
// every argument "1".
func (tc tableCommand) baseArgs() []string {
	args := strings.Split(tc.name, "|")
	n := tc.arity
	if n < 0 {
		n = -n
	}
	for len(args) < n {
		args = append(args, "1")
	}
	return args
}

// keyExamples are calls of the keyed commands whose keys all-"1"
// arguments do not reach (the keys follow a keyword).
var keyExamples = map[string][]string{
	"xread":      {"xread", "streams", "s1", "0"},
	"xreadgroup": {"xreadgroup", "group", "g", "c", "streams", "s1", ">"},
}

// keyPositions finds, as COMMAND GETKEYS does, the key arguments of a
// call of tc: the base call, and the positions whose change changes the
// keys GETKEYS reports.
func keyPositions(t *testing.T, c *redis.Client, tc tableCommand) ([]string, []int) {
	t.Helper()
	getkeys := func(args []string) []string {
		q := []any{"command", "getkeys"}
		for _, a := range args {
			q = append(q, a)
		}
		v, err := c.Do(t.Context(), q...).Result()
		if err != nil {
			return nil
		}
		var keys []string
		for _, k := range v.([]any) {
			keys = append(keys, k.(string))
		}
		return keys
	}
	candidates := [][]string{}
	if ex, ok := keyExamples[tc.name]; ok {
		candidates = append(candidates, ex)
	}
	base := tc.baseArgs()
	for extra := 0; extra < 4; extra++ {
		candidates = append(candidates, slices.Clone(base))
		base = append(base, "1")
	}
	for _, args := range candidates {
		if len(getkeys(args)) == 0 {
			continue
		}
		var pos []int
		for i := len(strings.Split(tc.name, "|")); i < len(args); i++ {
			probe := slices.Clone(args)
			probe[i] = "probe"
			if slices.Contains(getkeys(probe), "probe") {
				pos = append(pos, i)
			}
		}
		if len(pos) > 0 {
			return args, pos
		}
	}
	return nil, nil
}

func anyArgs(args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// noAuthCommands are the commands Redis 7.0 flags CMD_NO_AUTH: served
// before a connection authenticates.
var noAuthCommands = []string{"auth", "hello", "quit", "reset"}

func TestACLTableNoAuth(t *testing.T) {
	e := newEnv(t, func(o *resp.Options) { o.RequirePass = "pw" })
	admin := e.userClient("default", "pw")
	var flagged []string
	r := e.resp()
	for _, tc := range commandTable(t, admin) {
		if slices.Contains(tc.flags, "no_auth") {
			flagged = append(flagged, tc.name)
			continue
		}
		args := tc.baseArgs()
		if got := r.do(anyArgs(args)...); got != "(error) NOAUTH Authentication required." {
			t.Errorf("%v before AUTH: %q", args, got)
		}
	}
	slices.Sort(flagged)
	if !slices.Equal(flagged, noAuthCommands) {
		t.Errorf("no_auth commands %v, want %v", flagged, noAuthCommands)
	}
	// Lookup and arity come before authentication.
	expect(t, r.do("get"), "(error) ERR wrong number of arguments for 'get' command")
	expect(t, r.do("nosuch"), "(error) ERR unknown command 'nosuch', with args beginning with: ")
	// The no_auth commands are served.
	expect(t, r.do("auth", "wrong"), "(error) WRONGPASS invalid username-password pair or user is disabled.")
	expect(t, r.do("hello"), "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
	expect(t, r.do("reset"), "RESET")
	if got := r.do("hello", "2", "auth", "default", "pw"); !strings.HasPrefix(got, "[server ") {
		t.Errorf("HELLO 2 AUTH: %q", got)
	}
	expect(t, r.do("ping"), "PONG")
	q := e.resp()
	expect(t, q.do("quit"), "OK")
}

func TestACLTableCategories(t *testing.T) {
	e := newEnv(t)
	admin := e.client(3)
	table := commandTable(t, admin)
	for _, removed := range []string{"@dangerous", "@write", "@admin", "@keyspace"} {
		user := "u" + strings.TrimPrefix(removed, "@")
		mustDo(t, admin, "acl", "setuser", user, "on", ">pw", "~*", "&*", "+@all", "-"+removed)
		u := e.userClient(user, "pw")
		for _, tc := range table {
			args := tc.baseArgs()
			if slices.Contains(tc.cats, removed) {
				want := fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", tc.name)
				wantErr(t, u, want, anyArgs(args)...)
				continue
			}
			dry := append([]any{"acl", "dryrun", user}, anyArgs(args)...)
			if got := mustDo(t, admin, dry...); got != "OK" {
				t.Errorf("-%s: %v refused: %v", removed, args, got)
			}
		}
	}
}

func TestACLTableKeys(t *testing.T) {
	e := newEnv(t)
	admin := e.client(3)
	mustDo(t, admin, "acl", "setuser", "app", "on", ">pw", "~app:*", "&*", "+@all")
	u := e.userClient("app", "pw")
	keyErr := "NOPERM this user has no permissions to access one of the keys used as arguments"
	// Shard channels are key specs flagged not_key: no keys, checked as channels.
	wantErr(t, admin, "ERR The command has no key arguments", "command", "getkeys", "spublish", "ch", "m")
	for _, tc := range commandTable(t, admin) {
		if !tc.keyed {
			continue
		}
		args, pos := keyPositions(t, admin, tc)
		if pos == nil {
			t.Errorf("%s: COMMAND GETKEYS finds no key in calls of it", tc.name)
			continue
		}
		inside := slices.Clone(args)
		for _, i := range pos {
			inside[i] = fmt.Sprintf("app:%d", i)
		}
		dry := append([]any{"acl", "dryrun", "app"}, anyArgs(inside)...)
		if got := mustDo(t, admin, dry...); got != "OK" {
			t.Errorf("%v refused: %v", inside, got)
		}
		for _, i := range pos {
			outside := slices.Clone(inside)
			outside[i] = "other"
			wantErr(t, u, keyErr, anyArgs(outside)...)
		}
	}
}

func TestACLScriptCheckCmd(t *testing.T) {
	e := newEnv(t)
	admin := e.client(2)
	mustDo(t, admin, "acl", "setuser", "app", "on", ">pw", "~app:*", "&*", "+@all", "-set", "-config|set")
	u := e.userClient("app", "pw")
	body := `return {redis.acl_check_cmd('get', 'app:1') and 1 or 0, redis.acl_check_cmd('GET', 'x') and 1 or 0,
		redis.acl_check_cmd('set', 'app:1', 'v') and 1 or 0, redis.acl_check_cmd('get') and 1 or 0,
		redis.acl_check_cmd('config', 'get', 'x') and 1 or 0, redis.acl_check_cmd('config', 'set', 'x', 'y') and 1 or 0}`
	got := fmt.Sprint(mustDo(t, u, "eval", body, "0"))
	if want := "[1 0 0 1 1 0]"; got != want {
		t.Errorf("acl_check_cmd as app: %s, want %s", got, want)
	}
	if got := fmt.Sprint(mustDo(t, admin, "eval", body, "0")); got != "[1 1 1 1 1 1]" {
		t.Errorf("acl_check_cmd as default: %s", got)
	}
	// The refusals are not entered in the ACL log.
	if n := len(mustDo(t, admin, "acl", "log").([]any)); n != 0 {
		t.Errorf("ACL LOG has %d entries", n)
	}
	where := func(body string) string { return " script: " + sha1hex(body) + ", on @user_script:1." }
	for _, c := range []struct{ body, msg string }{
		{"return redis.acl_check_cmd('nosuch')", "ERR Invalid command passed to redis.acl_check_cmd()"},
		{"return redis.acl_check_cmd('config', 'nosuch')", "ERR Invalid command passed to redis.acl_check_cmd()"},
		{"return redis.acl_check_cmd()", "ERR Please specify at least one argument for this redis lib call"},
		{"return redis.acl_check_cmd({})", "ERR Lua redis lib command arguments must be strings or integers"},
	} {
		wantErr(t, u, c.msg+where(c.body), "eval", c.body, "0")
	}
}

// Ensure that the ACL categories of the HELP subcommands and MEMORY USAGE
// are Redis 7.0's, so that -@connection, -@scripting and -@keyspace take
// them away as Redis does.
func TestACLTableHelpCategories(t *testing.T) {
	e := newEnv(t)
	admin := e.client(3)
	want := map[string][]string{
		"client|help": {"@slow", "@connection"}, "command|help": {"@slow", "@connection"},
		"function|help": {"@slow", "@scripting"}, "script|help": {"@slow", "@scripting"},
		"object|help": {"@keyspace", "@slow"}, "memory|usage": {"@read", "@slow"},
		"config|help": {"@slow"},
	}
	for _, tc := range commandTable(t, admin) {
		if w, ok := want[tc.name]; ok && !slices.Equal(tc.cats, w) {
			t.Errorf("%s categories %v, want %v", tc.name, tc.cats, w)
		}
	}
	mustDo(t, admin, "acl", "setuser", "noconn", "on", ">pw", "~*", "+@all", "-@connection")
	wantErr(t, e.userClient("noconn", "pw"), "NOPERM this user has no permissions to run the 'client|help' command", "client", "help")
}
