package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync/atomic"
)

// Config is a loaded TLS configuration whose files Reload reads again.
type Config struct {
	opts Options
	// current is what new handshakes use.
	current atomic.Pointer[material]
}

// material is what the files held when last read.
type material struct {
	cert *tls.Certificate
	cas  *x509.CertPool // nil without Options.CAFile
}

// Load validates opts and reads their files.
func Load(opts Options) (*Config, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if !opts.Enabled() {
		return nil, fmt.Errorf("tls: no certificate file")
	}
	m, err := read(opts)
	if err != nil {
		return nil, err
	}
	c := &Config{opts: opts}
	c.current.Store(m)
	return c, nil
}

// Options returns the options the Config was loaded with.
func (c *Config) Options() Options { return c.opts }

// ClientAuth returns the client authentication mode in effect.
func (c *Config) ClientAuth() ClientAuth { return c.opts.clientAuth() }

// MinVersion returns the lowest protocol version accepted: "1.2" or "1.3".
func (c *Config) MinVersion() string {
	if c.opts.minVersion() == tls.VersionTLS13 {
		return "1.3"
	}
	return "1.2"
}

// Reload reads the files again. New handshakes use what they now hold;
// established connections are not affected. On error nothing changes.
func (c *Config) Reload() error {
	m, err := read(c.opts)
	if err != nil {
		return err
	}
	c.current.Store(m)
	return nil
}

// Certificate returns the leaf certificate new handshakes present.
func (c *Config) Certificate() *x509.Certificate { return c.current.Load().cert.Leaf }

// TLSConfig returns the server configuration: each handshake takes the
// certificate and authorities of the last successful load.
func (c *Config) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion: c.opts.minVersion(),
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			m := c.current.Load()
			return &tls.Config{
				MinVersion:   c.opts.minVersion(),
				Certificates: []tls.Certificate{*m.cert},
				ClientAuth:   c.opts.clientAuth().tls(),
				ClientCAs:    m.cas,
			}, nil
		},
	}
}

// read loads the certificate, its key and the authorities.
func read(opts Options) (*material, error) {
	certPEM, err := os.ReadFile(opts.CertFile)
	if err != nil {
		return nil, fmt.Errorf("tls: certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(opts.keyFile())
	if err != nil {
		return nil, fmt.Errorf("tls: private key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("tls: certificate %s and key %s: %w", opts.CertFile, opts.keyFile(), err)
	}
	m := &material{cert: &cert}
	if opts.CAFile != "" {
		caPEM, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls: certificate authority: %w", err)
		}
		m.cas = x509.NewCertPool()
		if !m.cas.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("tls: certificate authority %s holds no PEM certificate", opts.CAFile)
		}
	}
	return m, nil
}
