package integration_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
	"github.com/mayfly/mayfly/internal/tlsconf/tlstest"
)

// startTLS starts a server whose listeners serve TLS with pki's server
// certificate and authority, plus extra flags.
func startTLS(t *testing.T, pki *tlstest.PKI, args ...string) *harness.Server {
	t.Helper()
	return harness.Start(t, append([]string{"--tls-cert-file", pki.CertFile, "--tls-key-file", pki.KeyFile, "--tls-ca-file", pki.CAFile}, args...)...)
}

func tlsRedis(t *testing.T, addr string, cfg *tls.Config) *redis.Client {
	t.Helper()
	rc := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: cfg, MaxRetries: -1, PoolSize: 1, DialTimeout: 5 * time.Second})
	t.Cleanup(func() { rc.Close() })
	return rc
}

// dialTLS is dialRaw over TLS.
func dialTLS(t *testing.T, addr string, cfg *tls.Config) *rawConn {
	t.Helper()
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{Conn: nc, r: bufio.NewReaderSize(nc, 1<<16)}
}

func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Ensure that with a certificate the Redis listener serves TLS only (go-redis
// and redis-cli with the authority), that --resp-plain-addr serves plain
// text beside it, that CONFIG reports the TLS settings in effect and
// refuses to change them, and that a plain-text or stalled client on the
// TLS port is closed without holding up the others.
func TestTLSRedis(t *testing.T) {
	pki := tlstest.New(t)
	s := startTLS(t, pki, "--resp-plain-addr", "127.0.0.1:0", "--tls-handshake-timeout", "1s", "--tls-min-version", "1.3")
	ctx := t.Context()
	rc := tlsRedis(t, s.RespAddr, pki.ClientConfig(t, false))
	if err := rc.Set(ctx, "greeting", "over tls", 0).Err(); err != nil {
		t.Fatal(err)
	}
	plain := redis.NewClient(&redis.Options{Addr: s.RespPlainAddr, MaxRetries: -1})
	defer plain.Close()
	if v, err := plain.Get(ctx, "greeting").Result(); err != nil || v != "over tls" {
		t.Fatalf("GET on the plain listener = %q, %v", v, err)
	}
	want := map[string]string{
		"tls-port":         port(t, s.RespAddr),
		"port":             port(t, s.RespPlainAddr),
		"tls-cert-file":    pki.CertFile,
		"tls-key-file":     pki.KeyFile,
		"tls-ca-cert-file": pki.CAFile,
		"tls-auth-clients": "no",
		"tls-protocols":    "TLSv1.3",
	}
	for name, v := range want {
		got, err := rc.ConfigGet(ctx, name).Result()
		if err != nil || got[name] != v {
			t.Errorf("CONFIG GET %s = %v, %v; want %q", name, got, err, v)
		}
	}
	if err := rc.ConfigSet(ctx, "tls-auth-clients", "no").Err(); err != nil {
		t.Errorf("CONFIG SET tls-auth-clients to its value: %v", err)
	}
	if err := rc.ConfigSet(ctx, "tls-cert-file", "/elsewhere.pem").Err(); err == nil ||
		err.Error() != "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs." {
		t.Errorf("CONFIG SET tls-cert-file = %v", err)
	}
	if err := rc.ConfigSet(ctx, "tls-port", "1").Err(); err == nil || !strings.Contains(err.Error(), "Unable to listen on this port") {
		t.Errorf("CONFIG SET tls-port = %v", err)
	}

	// redis-cli with --tls --cacert.
	out, err := exec.CommandContext(ctx, harness.Tool(t, "redis-cli"), "-h", "127.0.0.1", "-p", port(t, s.RespAddr),
		"--tls", "--cacert", pki.CAFile, "GET", "greeting").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "over tls" {
		t.Fatalf("redis-cli --tls GET = %q, %v", out, err)
	}

	// Plain text on the TLS port is closed at once, a stalled handshake
	// after the handshake timeout; meanwhile others are served.
	garbage := dialRaw(t, s.RespAddr)
	io.WriteString(garbage, "PING\r\n")
	stalled := dialRaw(t, s.RespAddr)
	stalled.Write([]byte{0x16, 0x03, 0x01})
	start := time.Now()
	if err := tlsRedis(t, s.RespAddr, pki.ClientConfig(t, false)).Ping(ctx).Err(); err != nil {
		t.Fatalf("PING beside a stalled handshake: %v", err)
	}
	if !garbage.closed(5 * time.Second) {
		t.Error("a plain-text client on the TLS port was not closed")
	}
	if !stalled.closed(5 * time.Second) {
		t.Error("a stalled handshake was not closed")
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("the stalled handshake was closed after %v, before the 1s handshake timeout", d)
	}
	// A TLS 1.2 client is refused by --tls-min-version 1.3.
	old := pki.ClientConfig(t, false)
	old.MaxVersion = tls.VersionTLS12
	if refusedTLS(t, s.RespAddr, old) == nil {
		t.Error("a TLS 1.2 client was served with --tls-min-version 1.3")
	}
}

// Ensure that the connection-level limits hold over TLS: the frame
// timeout, client-query-buffer-limit, CLIENT KILL, and a blocked client's
// connection going away.
func TestTLSRedisConnectionLimits(t *testing.T) {
	pki := tlstest.New(t)
	s := startTLS(t, pki, "--frame-timeout", "1s")
	ctx := t.Context()
	cfg := pki.ClientConfig(t, false)
	rc := tlsRedis(t, s.RespAddr, cfg)

	partial := dialTLS(t, s.RespAddr, cfg)
	io.WriteString(partial, "*2\r\n$3\r\nGET\r\n")
	if !partial.closed(10 * time.Second) {
		t.Error("a request left half sent over TLS outlived the frame timeout")
	}

	if err := rc.ConfigSet(ctx, "client-query-buffer-limit", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	big := dialTLS(t, s.RespAddr, cfg)
	io.WriteString(big, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n")
	big.Write(make([]byte, 1100<<10))
	if !big.closed(5 * time.Second) {
		t.Error("a request over client-query-buffer-limit over TLS did not close the connection")
	}

	victim := dialTLS(t, s.RespAddr, cfg)
	io.WriteString(victim, "CLIENT ID\r\n")
	id := strings.TrimPrefix(victim.line(t), ":")
	if n, err := rc.ClientKillByFilter(ctx, "ID", id).Result(); err != nil || n != 1 {
		t.Fatalf("CLIENT KILL ID %s = %d, %v", id, n, err)
	}
	if !victim.closed(5 * time.Second) {
		t.Error("CLIENT KILL did not close a TLS client")
	}

	// A blocked client whose TCP connection goes away under TLS is
	// noticed and dropped, as on a plain connection.
	tcp, err := net.DialTimeout("tcp", s.RespAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	blocked := tls.Client(tcp, cfg)
	io.WriteString(blocked, "BLPOP nothing 0\r\n")
	eventually(t, 10*time.Second, "the client blocks", func() bool {
		return strings.Contains(rc.Info(ctx, "clients").Val(), "blocked_clients:1\r\n")
	})
	tcp.Close()
	eventually(t, 10*time.Second, "the gone client is dropped", func() bool {
		return strings.Contains(rc.Info(ctx, "clients").Val(), "blocked_clients:0\r\n")
	})
	if err := rc.Ping(ctx).Err(); err != nil {
		t.Fatalf("after the limits: %v", err)
	}
}

// Ensure that with tls-client-auth = required (in a config file) a client
// without a certificate is refused on both protocols and one with a
// certificate the authority signed is served.
func TestTLSClientAuthRequired(t *testing.T) {
	pki := tlstest.New(t)
	// The TLS settings come from a config file, as the flags' names.
	conf := filepath.Join(t.TempDir(), "mayfly.conf")
	settings := fmt.Sprintf("tls-cert-file = %q\ntls-key-file = %s\ntls-ca-file = %s\ntls-client-auth = required\n", pki.CertFile, pki.KeyFile, pki.CAFile)
	if err := os.WriteFile(conf, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--config", conf)
	ctx := t.Context()
	if refusedTLS(t, s.RespAddr, pki.ClientConfig(t, false)) == nil {
		t.Error("a Redis client without a certificate was served")
	}
	rc := tlsRedis(t, s.RespAddr, pki.ClientConfig(t, true))
	if err := rc.Ping(ctx).Err(); err != nil {
		t.Fatalf("a Redis client with a certificate: %v", err)
	}
	if v, _ := rc.ConfigGet(ctx, "tls-auth-clients").Result(); v["tls-auth-clients"] != "yes" {
		t.Errorf("tls-auth-clients = %v, want yes", v)
	}
	out, err := exec.CommandContext(ctx, harness.Tool(t, "redis-cli"), "-h", "127.0.0.1", "-p", port(t, s.RespAddr),
		"--tls", "--cacert", pki.CAFile, "--cert", pki.ClientCertFile, "--key", pki.ClientKeyFile, "PING").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "PONG" {
		t.Errorf("redis-cli with a client certificate = %q, %v", out, err)
	}

	if err := pingMongo(ctx, mongoTLSURI(s, pki, "")); err == nil {
		t.Error("a MongoDB client without a certificate was served")
	}
	if err := pingMongo(ctx, mongoTLSURI(s, pki, combinedClientPEM(t, pki))); err != nil {
		t.Errorf("a MongoDB client with a certificate: %v", err)
	}
}

// refusedTLS sends PING over a TLS connection made with cfg and returns
// the error met (nil: the server answered PONG). A refused handshake shows
// in the dial, or under TLS 1.3 in the first read.
func refusedTLS(t *testing.T, addr string, cfg *tls.Config) error {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return err
	}
	l, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if l != "+PONG\r\n" {
		t.Fatalf("PING = %q", l)
	}
	return nil
}

// combinedClientPEM writes the client certificate and its key into one
// file, as MongoDB's tlsCertificateKeyFile wants.
func combinedClientPEM(t *testing.T, pki *tlstest.PKI) string {
	t.Helper()
	cert, err := os.ReadFile(pki.ClientCertFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(pki.ClientKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "client-combined.pem")
	if err := os.WriteFile(path, append(cert, key...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mongoTLSURI(s *harness.Server, pki *tlstest.PKI, certKeyFile string) string {
	u := "mongodb://" + s.MongoAddr + "/?directConnection=true&serverSelectionTimeoutMS=3000&tls=true&tlsCAFile=" + url.QueryEscape(pki.CAFile)
	if certKeyFile != "" {
		u += "&tlsCertificateKeyFile=" + url.QueryEscape(certKeyFile)
	}
	return u
}

func pingMongo(ctx context.Context, uri string) error {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(10 * time.Second))
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	return cl.Ping(ctx, nil)
}

// Ensure that the MongoDB listener serves TLS to the Go driver
// (tls=true&tlsCAFile=...) and mongosh (--tls --tlsCAFile), that
// --mongo-plain-addr serves plain text beside it, that getCmdLineOpts
// shows net.tls as MongoDB does, and that the message size limit holds
// over TLS.
func TestTLSMongo(t *testing.T) {
	pki := tlstest.New(t)
	s := startTLS(t, pki, "--mongo-plain-addr", "127.0.0.1:0", "--tls-client-auth", "optional")
	ctx := t.Context()
	cl, err := mongo.Connect(options.Client().ApplyURI(mongoTLSURI(s, pki, "")).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	coll := cl.Database("app").Collection("items")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "over tls"}}); err != nil {
		t.Fatal(err)
	}
	var got bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["name"] != "over tls" {
		t.Fatalf("findOne = %v, %v", got, err)
	}
	if err := pingMongo(ctx, "mongodb://"+s.MongoPlainAddr+"/?directConnection=true&serverSelectionTimeoutMS=5000"); err != nil {
		t.Errorf("the plain listener: %v", err)
	}
	if err := pingMongo(ctx, "mongodb://"+s.MongoAddr+"/?directConnection=true&serverSelectionTimeoutMS=2000"); err == nil {
		t.Error("a plain-text MongoDB client was served on the TLS port")
	}

	opts, err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	wantTLS := bson.D{{Key: "mode", Value: "requireTLS"}, {Key: "certificateKeyFile", Value: pki.CertFile}, {Key: "CAFile", Value: pki.CAFile},
		{Key: "allowConnectionsWithoutCertificates", Value: true}, {Key: "disabledProtocols", Value: "TLS1_0,TLS1_1"}}
	want, _ := bson.Marshal(wantTLS)
	if got := opts.Lookup("parsed", "net", "tls").Document(); string(got) != string(want) {
		t.Errorf("getCmdLineOpts net.tls = %v, want %v", got, bson.Raw(want))
	}

	over := dialTLS(t, s.MongoAddr, pki.ClientConfig(t, false))
	hdr := make([]byte, 16)
	binary.LittleEndian.PutUint32(hdr, 48_000_001)
	binary.LittleEndian.PutUint32(hdr[12:], 2013)
	over.Write(hdr)
	if !over.closed(5 * time.Second) {
		t.Error("a message over maxMessageSizeBytes over TLS did not close the connection")
	}

	out := mongosh(t, s, "app", "db.items.findOne({_id: 1}).name\n",
		"--tls", "--tlsCAFile", pki.CAFile, "--quiet")
	wantOutput(t, out, "over tls")
}

// Ensure that SIGHUP swaps the certificate for new handshakes on every
// listener while an open connection keeps working, that a broken
// certificate file keeps the one in force, and that it reloads the admin
// tokens; and that the admin API serves HTTPS.
func TestTLSReloadOnSIGHUP(t *testing.T) {
	pki := tlstest.New(t)
	tokens := filepath.Join(t.TempDir(), "tokens")
	const oldTok, newTok = "old-token-0123456789abcdef", "new-token-0123456789abcdef"
	if err := os.WriteFile(tokens, []byte(oldTok+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTLS(t, pki, "--admin-token-file", tokens, "--admin-require-auth-for-metrics")
	ctx := t.Context()
	cfg := pki.ClientConfig(t, false)
	open := dialTLS(t, s.RespAddr, cfg)
	io.WriteString(open, "PING\r\n")
	if l := open.line(t); l != "+PONG" {
		t.Fatalf("PING = %q", l)
	}
	serialOf := func(addr string) string {
		t.Helper()
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatalf("handshake with %s: %v", addr, err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.String()
	}
	before := serialOf(s.RespAddr)

	https := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}
	get := func(path, tok string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+s.HTTPAddr+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := https.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("/metrics", ""); got != 401 {
		t.Errorf("/metrics without a token = %d, want 401", got)
	}
	if got := get("/metrics", oldTok); got != 200 {
		t.Errorf("/metrics with a token = %d, want 200", got)
	}
	if resp, err := http.Get("http://" + s.HTTPAddr + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("the admin API answered plain HTTP")
		}
	}

	serial := pki.IssueServer(t).String()
	if err := os.WriteFile(tokens, []byte(newTok+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the reload is logged", func() bool {
		return strings.Contains(s.Logs(), "reload: TLS certificate loaded") && strings.Contains(s.Logs(), "reload: admin tokens loaded")
	})
	for _, addr := range []string{s.RespAddr, s.MongoAddr, s.HTTPAddr} {
		if got := serialOf(addr); got != serial || got == before {
			t.Errorf("after SIGHUP %s presents serial %s, want the new %s (before: %s)", addr, got, serial, before)
		}
	}
	io.WriteString(open, "PING\r\n")
	if l := open.line(t); l != "+PONG" {
		t.Fatalf("the connection opened before SIGHUP: PING = %q", l)
	}
	if got := get("/metrics", oldTok); got != 401 {
		t.Errorf("a removed token after SIGHUP: %d, want 401", got)
	}
	if got := get("/metrics", newTok); got != 200 {
		t.Errorf("a new token after SIGHUP: %d, want 200", got)
	}

	// The admin commands reach the HTTPS API with --tls-ca-file.
	cli := exec.CommandContext(ctx, harness.Binary(t), "ttls", "list", "--format", "json",
		"--server", "https://"+s.HTTPAddr, "--tls-ca-file", pki.CAFile)
	cli.Env = append(os.Environ(), "MAYFLY_ADMIN_TOKEN="+newTok)
	if out, err := cli.CombinedOutput(); err != nil {
		t.Errorf("mayfly ttls list over HTTPS: %v\n%s", err, out)
	}

	// A broken certificate keeps the one in force.
	if err := os.WriteFile(pki.CertFile, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the failed reload is logged", func() bool {
		return strings.Contains(s.Logs(), "reload: TLS certificate kept")
	})
	if got := serialOf(s.RespAddr); got != serial {
		t.Errorf("after a failed reload the server presents serial %s, want %s", got, serial)
	}
	if err := tlsRedis(t, s.RespAddr, cfg).Ping(ctx).Err(); err != nil {
		t.Errorf("PING after a failed reload: %v", err)
	}

	// A graceful stop with TLS clients connected, one of them blocked.
	io.WriteString(open, "BLPOP nothing 0\r\n")
	stopCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Stop(stopCtx); err != nil {
		t.Fatalf("stop with TLS clients connected: %v\n%s", err, s.Logs())
	}
	if !open.closed(5 * time.Second) {
		t.Error("the blocked TLS client was not closed by the stop")
	}
}

// TestTLSIoredis runs testdata/ioredis/ioredis_tls_test.js: ioredis with
// its tls option (the authority) against the TLS listener.
func TestTLSIoredis(t *testing.T) {
	modules, node := ioredisModules(t)
	pki := tlstest.New(t)
	s := startTLS(t, pki)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "ioredis", "ioredis_tls_test.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "MAYFLY_RESP_ADDR="+s.RespAddr, "MAYFLY_TLS_CA_FILE="+pki.CAFile)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ioredis script: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
