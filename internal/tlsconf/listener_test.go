package tlsconf_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/tlsconf"
	"github.com/mayfly/mayfly/internal/tlsconf/tlstest"
)

// echo serves l: each accepted connection gets back what it sends.
func echo(t *testing.T, l net.Listener) {
	t.Helper()
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
}

func listen(t *testing.T, opts tlsconf.Options) (*tlsconf.Config, net.Listener) {
	t.Helper()
	cfg, err := tlsconf.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Listen(inner, nil)
	echo(t, l)
	return cfg, l
}

// roundTrip writes and reads back one line on c.
func roundTrip(t *testing.T, c net.Conn, msg string) error {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		return err
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != msg {
		t.Fatalf("echo = %q, want %q", buf, msg)
	}
	return nil
}

func TestHandshakeAndVersion(t *testing.T) {
	pki := tlstest.New(t)
	_, l := listen(t, tlsconf.Options{CertFile: pki.CertFile, KeyFile: pki.KeyFile, MinVersion: "1.3"})
	c, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := roundTrip(t, c, "hello"); err != nil {
		t.Fatal(err)
	}
	if v := c.ConnectionState().Version; v != tls.VersionTLS13 {
		t.Fatalf("version = %x, want TLS 1.3", v)
	}
	old := pki.ClientConfig(t, false)
	old.MaxVersion = tls.VersionTLS12
	if c, err := tls.Dial("tcp", l.Addr().String(), old); err == nil {
		err = roundTrip(t, c, "x")
		c.Close()
		if err == nil {
			t.Fatal("a TLS 1.2 client was served by a server with minimum 1.3")
		}
	}
}

func TestCombinedCertificateAndKeyFile(t *testing.T) {
	pki := tlstest.New(t)
	cert, _ := os.ReadFile(pki.CertFile)
	key, _ := os.ReadFile(pki.KeyFile)
	combined := pki.Dir + "/combined.pem"
	if err := os.WriteFile(combined, append(cert, key...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, l := listen(t, tlsconf.Options{CertFile: combined})
	c, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := roundTrip(t, c, "combined"); err != nil {
		t.Fatal(err)
	}
}

func TestClientAuth(t *testing.T) {
	pki := tlstest.New(t)
	for _, tc := range []struct {
		mode              tlsconf.ClientAuth
		withoutCert, with bool // served?
	}{
		{tlsconf.ClientAuthNone, true, true},
		{tlsconf.ClientAuthOptional, true, true},
		{tlsconf.ClientAuthRequired, false, true},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			_, l := listen(t, tlsconf.Options{CertFile: pki.CertFile, KeyFile: pki.KeyFile, CAFile: pki.CAFile, ClientAuth: tc.mode})
			for _, withCert := range []bool{false, true} {
				want := tc.withoutCert
				if withCert {
					want = tc.with
				}
				c, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, withCert))
				if err == nil {
					// A refused client certificate shows on the first
					// read under TLS 1.3.
					err = roundTrip(t, c, "ping")
					c.Close()
				}
				if (err == nil) != want {
					t.Errorf("with certificate %v: err = %v, want served %v", withCert, err, want)
				}
			}
		})
	}
}

func TestReloadSwapsCertificateForNewHandshakes(t *testing.T) {
	pki := tlstest.New(t)
	cfg, l := listen(t, tlsconf.Options{CertFile: pki.CertFile, KeyFile: pki.KeyFile})
	first, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := roundTrip(t, first, "before"); err != nil {
		t.Fatal(err)
	}
	oldSerial := first.ConnectionState().PeerCertificates[0].SerialNumber

	serial := pki.IssueServer(t)
	if err := cfg.Reload(); err != nil {
		t.Fatal(err)
	}
	second, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if got := second.ConnectionState().PeerCertificates[0].SerialNumber; got.Cmp(serial) != 0 || got.Cmp(oldSerial) == 0 {
		t.Fatalf("after reload the server presents serial %v, want the new %v", got, serial)
	}
	if err := roundTrip(t, first, "after"); err != nil {
		t.Fatalf("the connection opened before the reload: %v", err)
	}

	// A reload that fails keeps the certificate.
	if err := os.WriteFile(pki.CertFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Reload(); err == nil {
		t.Fatal("Reload of a broken certificate file succeeded")
	}
	third, err := tls.Dial("tcp", l.Addr().String(), pki.ClientConfig(t, false))
	if err != nil {
		t.Fatalf("after a failed reload: %v", err)
	}
	defer third.Close()
	if got := third.ConnectionState().PeerCertificates[0].SerialNumber; got.Cmp(serial) != 0 {
		t.Fatalf("after a failed reload the server presents serial %v, want %v", got, serial)
	}
}

func TestPlainTextAndStalledHandshakesAreClosed(t *testing.T) {
	pki := tlstest.New(t)
	_, l := listen(t, tlsconf.Options{CertFile: pki.CertFile, KeyFile: pki.KeyFile, HandshakeTimeout: 300 * time.Millisecond})
	addr := l.Addr().String()

	// Plain text is not a handshake: closed at once.
	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	io.WriteString(plain, "PING\r\n")
	plain.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(plain); err != nil && !isReset(err) {
		t.Fatalf("plain client: %v, want the connection closed", err)
	}

	// A client that starts a record and stalls holds no one up and is
	// closed after the handshake timeout.
	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.Write([]byte{0x16, 0x03, 0x01})
	start := time.Now()
	c, err := tls.Dial("tcp", addr, pki.ClientConfig(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(t, c, "meanwhile"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	stalled.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(stalled)
	if err != nil && !isReset(err) {
		t.Fatalf("stalled client: %v, want the connection closed", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("stalled handshake closed after %v", d)
	}
}

func isReset(err error) bool {
	return errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "reset")
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		opts tlsconf.Options
		want string
	}{
		{tlsconf.Options{CAFile: "ca.pem"}, "need --tls-cert-file"},
		{tlsconf.Options{ClientAuth: tlsconf.ClientAuthRequired}, "needs --tls-cert-file"},
		{tlsconf.Options{CertFile: "c", ClientAuth: tlsconf.ClientAuthRequired}, "needs --tls-ca-file"},
		{tlsconf.Options{CertFile: "c", ClientAuth: "sometimes"}, "unknown client authentication"},
		{tlsconf.Options{CertFile: "c", MinVersion: "1.1"}, "unsupported TLS version"},
		{tlsconf.Options{CertFile: "c", CAFile: "a", ClientAuth: tlsconf.ClientAuthOptional, MinVersion: "1.3"}, ""},
	} {
		err := tc.opts.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := tlsconf.Load(tlsconf.Options{CertFile: "/nonexistent.pem"}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Load of a missing file = %v", err)
	}
}
