// Package tlstest makes certificates for tests: a certificate authority, a
// server certificate for 127.0.0.1 and localhost, and a client
// certificate, written as PEM files into a test's temporary directory.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// PKI is a certificate authority and the files of the certificates it
// issued.
type PKI struct {
	Dir            string
	CAFile         string // the authority's certificate
	CertFile       string // the server's certificate
	KeyFile        string // the server's private key
	ClientCertFile string // a client certificate (CN "mayfly-test-client")
	ClientKeyFile  string

	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	pool   *x509.CertPool
	serial atomic.Int64
}

// New makes an authority and issues a server and a client certificate.
func New(t testing.TB) *PKI {
	t.Helper()
	dir := t.TempDir()
	p := &PKI{
		Dir:            dir,
		CAFile:         filepath.Join(dir, "ca.pem"),
		CertFile:       filepath.Join(dir, "server.pem"),
		KeyFile:        filepath.Join(dir, "server-key.pem"),
		ClientCertFile: filepath.Join(dir, "client.pem"),
		ClientKeyFile:  filepath.Join(dir, "client-key.pem"),
	}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(p.serial.Add(1)),
		Subject:               pkix.Name{CommonName: "mayfly test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.ca, err = x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p.caKey = key
	p.pool = x509.NewCertPool()
	p.pool.AddCert(p.ca)
	writePEM(t, p.CAFile, "CERTIFICATE", der)
	p.IssueServer(t)
	p.issue(t, p.ClientCertFile, p.ClientKeyFile, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "mayfly-test-client", OrganizationalUnit: []string{"clients"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return p
}

// IssueServer writes a new server certificate and key over CertFile and
// KeyFile and returns the certificate's serial number.
func (p *PKI) IssueServer(t testing.TB) *big.Int {
	t.Helper()
	return p.issue(t, p.CertFile, p.KeyFile, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

func (p *PKI) issue(t testing.TB, certFile, keyFile string, tmpl *x509.Certificate) *big.Int {
	t.Helper()
	key := newKey(t)
	tmpl.SerialNumber = big.NewInt(p.serial.Add(1))
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	// The key first, so a reader never pairs a new certificate with an
	// old key.
	writePEM(t, keyFile, "PRIVATE KEY", kder)
	writePEM(t, certFile, "CERTIFICATE", der)
	return tmpl.SerialNumber
}

// Pool returns a pool holding the authority.
func (p *PKI) Pool() *x509.CertPool { return p.pool }

// ClientConfig returns a client configuration trusting the authority,
// presenting the client certificate when withCert is set.
func (p *PKI) ClientConfig(t testing.TB, withCert bool) *tls.Config {
	t.Helper()
	cfg := &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1"}
	if withCert {
		cert, err := tls.LoadX509KeyPair(p.ClientCertFile, p.ClientKeyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// writePEM replaces path atomically with one PEM block.
func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
