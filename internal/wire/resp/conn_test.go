package resp_test

import (
	"bufio"
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// exchange writes raw bytes and reads until the server closes or want
// bytes arrived.
func exchange(t *testing.T, e *env, in string, want int) string {
	t.Helper()
	c := e.raw()
	if _, err := c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 0, want)
	tmp := make([]byte, 4096)
	for len(buf) < want {
		n, err := c.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if err == io.EOF {
			buf = append(buf, "<EOF>"...)
			break
		}
		if err != nil {
			t.Fatalf("read: %v after %q", err, buf)
		}
	}
	return string(buf)
}

func TestRawProtocol(t *testing.T) {
	e := newEnv(t)
	cases := []struct{ name, in, want string }{
		{"pipeline", "*1\r\n$4\r\nping\r\n*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\nGET k\r\n", "+PONG\r\n+OK\r\n$1\r\nv\r\n"},
		{"protocol error after replies", "PING\r\n*1\r\nfoo\r\n", "+PONG\r\n-ERR Protocol error: expected '$', got 'f'\r\n<EOF>"},
		{"empty requests", "*0\r\nping\r\n\r\n*-1\r\nping\r\n", "+PONG\r\n+PONG\r\n"},
		{"unbalanced quotes", "set a \"b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n<EOF>"},
		{"unknown command", "*1\r\n$3\r\nfooXX*1\r\n$4\r\nping\r\n", "-ERR unknown command 'foo', with args beginning with: \r\n+PONG\r\n"},
		{"quit", "QUIT\r\nPING\r\n", "+OK\r\n<EOF>"},
		{"pubsub context", "subscribe a\r\nget x\r\nping\r\nping hi\r\n",
			"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n*2\r\n$4\r\npong\r\n$2\r\nhi\r\n"},
		{"unsubscribe none", "unsubscribe\r\n", "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"},
		{"client reply", "client reply skip\r\nping 1\r\nping 2\r\nclient reply off\r\nping 3\r\nclient reply on\r\nping 4\r\n", "$1\r\n2\r\n+OK\r\n$1\r\n4\r\n"},
		{"client reply on after skip", "client reply skip\r\nclient reply on\r\nping\r\n", "+OK\r\n+PONG\r\n"},
		{"client reply off keeps pub/sub confirmations", "client reply off\r\nsubscribe a\r\nping\r\nunsubscribe a\r\npsubscribe p*\r\n",
			"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n*3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:1\r\n"},
		{"client reply skip keeps pub/sub confirmations", "client reply skip\r\nsubscribe a\r\n", "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := exchange(t, e, c.in, len(c.want)); got != c.want {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestReset checks that RESET leaves MULTI, RESP3 and the selected db.
func TestReset(t *testing.T) {
	e := newEnv(t)
	c := e.raw()
	r := bufio.NewReader(c)
	c.Write([]byte("hello 3\r\nselect 2\r\nmulti\r\nreset\r\nget nokey\r\nclient info\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var lines []string
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v after %q", err, lines)
		}
		lines = append(lines, l)
		if strings.Contains(l, "resp=2") {
			break
		}
	}
	all := strings.Join(lines, "")
	if !strings.Contains(all, "+OK\r\n+OK\r\n+RESET\r\n$-1\r\n") || !strings.Contains(all, " db=0 ") {
		t.Fatalf("got %q", all)
	}
}

func TestAuth(t *testing.T) {
	e := newEnv(t, func(o *resp.Options) { o.RequirePass = "s3cret" })
	got := exchange(t, e, "get k\r\nauth wrong\r\nauth default s3cret\r\nget k\r\n", 1)
	want := "-NOAUTH Authentication required.\r\n-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n$-1\r\n"
	for len(got) < len(want) {
		t.Fatalf("got %q", got)
	}
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	c := redis.NewClient(&redis.Options{Addr: e.addr, Password: "s3cret", DisableIdentity: true})
	defer c.Close()
	if err := c.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("go-redis with password (HELLO 3 AUTH): %v", err)
	}
	bad := redis.NewClient(&redis.Options{Addr: e.addr, Password: "nope", DisableIdentity: true, MaxRetries: -1})
	defer bad.Close()
	if err := bad.Ping(t.Context()).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("bad password: %v", err)
	}
}

func TestServerCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	runSteps(t, e, c, []step{
		reply("PONG", "ping"),
		reply("hi", "ping", "hi"),
		reply("hi", "echo", "hi"),
		ok("set", "a", "1"),
		ok("select", "1"),
		ok("set", "b", "1"),
		reply(int64(1), "dbsize"),
		ok("swapdb", "0", "1"),
		reply(nil, "get", "b"),
		reply("1", "get", "a"),
		ok("flushdb", "async"),
		reply(int64(0), "dbsize"),
		ok("select", "0"),
		reply("1", "get", "b"),
		ok("flushall", "sync"),
		reply(int64(0), "dbsize"),
		reply("embstr", "object", "encoding", "nokey2"),
	}[:16])
	runSteps(t, e, c, []step{
		ok("set", "i", "123"),
		reply("int", "object", "encoding", "i"),
		ok("set", "s", "abc"),
		reply("embstr", "object", "encoding", "s"),
		ok("set", "r", strings.Repeat("x", 45)),
		reply("raw", "object", "encoding", "r"),
		reply(nil, "object", "encoding", "nokey"),
		reply(int64(1), "object", "refcount", "s"),
		ok("function", "flush"),
		ok("script", "flush", "async"),
		ok("config", "set", "hz", "100", "active-expire-effort", "3"),
		reply([]any{"hz", "100", "active-expire-effort", "3"}, "config", "get", "hz", "active-expire-effort"),
		ok("config", "set", "proto-max-bulk-len", "2mb"),
		reply([]any{"proto-max-bulk-len", "2097152"}, "config", "get", "proto-max-bulk-len"),
		fails("ERR string exceeds maximum allowed size (proto-max-bulk-len)", "setrange", "s", "2097152", "x"),
		ok("config", "resetstat"),
		ok("client", "setname", "me"),
		reply("me", "client", "getname"),
		ok("debug", "set-active-expire", "0"),
	})
	tm, err := c.Time(ctx).Result()
	if err != nil || tm.IsZero() {
		t.Fatalf("time: %v %v", tm, err)
	}
	n, err := c.Do(ctx, "command", "count").Int()
	if err != nil || n < 60 {
		t.Fatalf("command count %d %v", n, err)
	}
	info, err := c.Command(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if g := info["get"]; g == nil || g.Arity != 2 || g.FirstKeyPos != 1 || !contains(g.Flags, "readonly") || !contains(g.ACLFlags, "@string") {
		t.Fatalf("COMMAND get: %+v", g)
	}
	if m := info["mset"]; m == nil || m.LastKeyPos != -1 || m.StepCount != 2 {
		t.Fatalf("COMMAND mset: %+v", m)
	}
	keys, err := c.CommandGetKeys(ctx, "mset", "a", "1", "b", "2").Result()
	if err != nil || strings.Join(keys, ",") != "a,b" {
		t.Fatalf("getkeys %v %v", keys, err)
	}
	list, err := c.CommandList(ctx, &redis.FilterBy{Pattern: "exp*"}).Result()
	if err != nil || strings.Join(list, ",") != "expire,expireat,expiretime" {
		t.Fatalf("command list %v %v", list, err)
	}
	docs, err := c.Do(ctx, "command", "docs", "get").Result()
	if err != nil || docs == nil {
		t.Fatalf("command docs %v %v", docs, err)
	}
	s, err := c.Info(ctx, "stats").Result()
	if err != nil || !strings.Contains(s, "expired_keys:0\r\n") || !strings.Contains(s, "expired_stale_perc:0.00\r\n") ||
		!strings.Contains(s, "expired_time_cap_reached_count:0\r\n") || !strings.Contains(s, "keyspace_hits:") {
		t.Fatalf("info stats %q %v", s, err)
	}
	all, err := c.Info(ctx).Result()
	if err != nil || !strings.Contains(all, "# Server\r\nredis_version:7.0.15\r\n") || !strings.Contains(all, "db0:keys=3,expires=0,avg_ttl=0") {
		t.Fatalf("info %q %v", all, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestClientCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	victim := e.client(2)
	ctx := t.Context()
	vid, err := victim.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.ClientList(ctx).Result()
	if err != nil || strings.Count(list, "\n") != 2 || !strings.Contains(list, "cmd=client|id") {
		t.Fatalf("client list %q %v", list, err)
	}
	one, err := c.Do(ctx, "client", "list", "id", vid).Text()
	if err != nil || !strings.HasPrefix(one, "id=") || strings.Count(one, "\n") != 1 {
		t.Fatalf("client list id %q %v", one, err)
	}
	n, err := c.Do(ctx, "client", "kill", "id", vid).Int()
	if err != nil || n != 1 {
		t.Fatalf("client kill %d %v", n, err)
	}
	// The killed connection is gone from the server (go-redis would dial a
	// new one).
	for strings.Contains(c.ClientList(ctx).Val(), "id="+strconv.FormatInt(vid, 10)+" ") {
		runtime.Gosched()
	}
}

func TestPubSub(t *testing.T) {
	e := newEnv(t)
	for _, proto := range []int{2, 3} {
		pub := e.client(2)
		ctx := t.Context()
		ps := e.client(proto).Subscribe(ctx, "news")
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		pps := e.client(proto).PSubscribe(ctx, "n*")
		if _, err := pps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		if n := pub.Publish(ctx, "news", "hello").Val(); n != 2 {
			t.Fatalf("RESP%d publish reached %d", proto, n)
		}
		m, err := ps.ReceiveMessage(ctx)
		if err != nil || m.Channel != "news" || m.Payload != "hello" {
			t.Fatalf("RESP%d message %+v %v", proto, m, err)
		}
		m, err = pps.ReceiveMessage(ctx)
		if err != nil || m.Pattern != "n*" || m.Channel != "news" || m.Payload != "hello" {
			t.Fatalf("RESP%d pmessage %+v %v", proto, m, err)
		}
		if ch := pub.PubSubChannels(ctx, "*").Val(); len(ch) != 1 || ch[0] != "news" {
			t.Fatalf("channels %v", ch)
		}
		if ns := pub.PubSubNumSub(ctx, "news", "none").Val(); ns["news"] != 1 || ns["none"] != 0 {
			t.Fatalf("numsub %v", ns)
		}
		if np := pub.PubSubNumPat(ctx).Val(); np != 1 {
			t.Fatalf("numpat %d", np)
		}
		ps.Close()
		pps.Close()
		// The server drops the closed subscribers when it sees the
		// connections go: wait for that before the next round publishes.
		for pub.PubSubNumSub(ctx, "news").Val()["news"] != 0 || pub.PubSubNumPat(ctx).Val() != 0 {
			runtime.Gosched()
		}
	}
}

// TestShutdownLetsCommandsFinish: a command in flight completes and its
// reply arrives before the connection closes.
func TestShutdownLetsCommandsFinish(t *testing.T) {
	e := newEnv(t)
	c := e.raw()
	c.Write([]byte("debug sleep 0.2\r\nping\r\n"))
	for e.srv.Stats().NetInputBytes == 0 { // the server has read the requests
		runtime.Gosched()
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- e.srv.Shutdown(ctx)
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, _ := io.ReadAll(c)
	if string(got) != "+OK\r\n+PONG\r\n" {
		t.Fatalf("got %q", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRESP3Types(t *testing.T) {
	e := newEnv(t)
	c := e.raw()
	r := bufio.NewReader(c)
	c.Write([]byte("hello 3\r\nconfig get hz\r\nget nokey\r\nmulti\r\nexec\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got strings.Builder
	for !strings.HasSuffix(got.String(), "_\r\n+OK\r\n*0\r\n") {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v after %q", err, got.String())
		}
		got.WriteString(l)
	}
	s := got.String()
	if !strings.HasPrefix(s, "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n") ||
		!strings.Contains(s, "%1\r\n$2\r\nhz\r\n$2\r\n10\r\n_\r\n+OK\r\n*0\r\n") {
		t.Fatalf("got %q", s)
	}
}

// TestIdleTimeout: with CONFIG SET timeout an idle client is closed (the
// real clock: one second).
func TestIdleTimeout(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	// Checked before the timeout is set: afterwards the client's own
	// pooled connection is closed once it idles for a second.
	if err := c.ConfigSet(t.Context(), "daemonize", "yes").Err(); err == nil ||
		err.Error() != "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config" {
		t.Fatalf("daemonize: %v", err)
	}
	if err := c.ConfigSet(t.Context(), "timeout", "1").Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got := exchange(t, e, "PING\r\n", len("+PONG\r\n<EOF>")); got != "+PONG\r\n<EOF>" {
		t.Fatalf("got %q", got)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("closed after %v", d)
	}
}
