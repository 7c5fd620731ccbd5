package tlsconf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"
)

// ClientAuth says whether a client must present a certificate.
type ClientAuth string

// The client authentication modes. A presented certificate is always
// verified against the certificate authority (Options.CAFile).
const (
	// ClientAuthNone asks for no client certificate.
	ClientAuthNone ClientAuth = "none"
	// ClientAuthOptional asks for one and verifies it when given.
	ClientAuthOptional ClientAuth = "optional"
	// ClientAuthRequired refuses the handshake of a client without a
	// verified certificate.
	ClientAuthRequired ClientAuth = "required"
)

// ParseClientAuth parses none, optional or required.
func ParseClientAuth(s string) (ClientAuth, error) {
	switch a := ClientAuth(s); a {
	case ClientAuthNone, ClientAuthOptional, ClientAuthRequired:
		return a, nil
	}
	return "", fmt.Errorf("unknown client authentication %q (want none, optional or required)", s)
}

func (a ClientAuth) tls() tls.ClientAuthType {
	switch a {
	case ClientAuthOptional:
		return tls.VerifyClientCertIfGiven
	case ClientAuthRequired:
		return tls.RequireAndVerifyClientCert
	}
	return tls.NoClientCert
}

// ParseMinVersion parses the lowest accepted protocol version: 1.2 or 1.3.
func ParseMinVersion(s string) (uint16, error) {
	switch s {
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("unsupported TLS version %q (want 1.2 or 1.3)", s)
}

// DefaultHandshakeTimeout bounds a handshake when Options give no bound.
const DefaultHandshakeTimeout = 10 * time.Second

// Options name the files and the policy of a Config. TLS is on when
// CertFile is set.
type Options struct {
	// CertFile is the PEM file of the server certificate chain, leaf
	// first. KeyFile is the PEM file of its private key; empty means the
	// key is in CertFile too.
	CertFile, KeyFile string
	// CAFile is the PEM file of the authorities client certificates are
	// verified against.
	CAFile string
	// ClientAuth says whether clients must present a certificate; empty
	// means ClientAuthNone. Optional and required need CAFile.
	ClientAuth ClientAuth
	// MinVersion is "1.2" or "1.3"; empty means 1.2.
	MinVersion string
	// HandshakeTimeout bounds each handshake; zero means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
}

// Enabled reports whether TLS is on.
func (o Options) Enabled() bool { return o.CertFile != "" }

// Validate reports the first inconsistent setting, naming the flags of
// `mayfly serve`.
func (o Options) Validate() error {
	if !o.Enabled() {
		if o.KeyFile != "" || o.CAFile != "" {
			return errors.New("--tls-key-file and --tls-ca-file need --tls-cert-file")
		}
		if o.ClientAuth != "" && o.ClientAuth != ClientAuthNone {
			return errors.New("--tls-client-auth needs --tls-cert-file")
		}
		return nil
	}
	if o.ClientAuth != "" {
		if _, err := ParseClientAuth(string(o.ClientAuth)); err != nil {
			return fmt.Errorf("--tls-client-auth: %w", err)
		}
	}
	if o.ClientAuth != "" && o.ClientAuth != ClientAuthNone && o.CAFile == "" {
		return fmt.Errorf("--tls-client-auth=%s needs --tls-ca-file to verify client certificates", o.ClientAuth)
	}
	if o.MinVersion != "" {
		if _, err := ParseMinVersion(o.MinVersion); err != nil {
			return fmt.Errorf("--tls-min-version: %w", err)
		}
	}
	if o.HandshakeTimeout < 0 {
		return fmt.Errorf("--tls-handshake-timeout must not be negative, got %s", o.HandshakeTimeout)
	}
	return nil
}

// keyFile is the file the private key is read from.
func (o Options) keyFile() string {
	if o.KeyFile == "" {
		return o.CertFile
	}
	return o.KeyFile
}

func (o Options) clientAuth() ClientAuth {
	if o.ClientAuth == "" {
		return ClientAuthNone
	}
	return o.ClientAuth
}

func (o Options) minVersion() uint16 {
	v, err := ParseMinVersion(o.MinVersion)
	if err != nil {
		return tls.VersionTLS12
	}
	return v
}

func (o Options) handshakeTimeout() time.Duration {
	if o.HandshakeTimeout == 0 {
		return DefaultHandshakeTimeout
	}
	return o.HandshakeTimeout
}
