package server

import (
	"errors"
	"fmt"
)

// Reload reads the TLS files and the admin token file again, as SIGHUP
// asks: new TLS handshakes and later admin requests see what they now
// hold, while open connections keep working. A file that fails to load
// leaves its previous contents in force; the error says which and why.
func (s *Server) Reload() error {
	var errs []error
	if s.tls != nil {
		if err := s.tls.Reload(); err != nil {
			s.log.Error("reload: TLS certificate kept", "err", err)
			errs = append(errs, fmt.Errorf("reload TLS: %w", err))
		} else {
			cert := s.tls.Certificate()
			s.log.Info("reload: TLS certificate loaded for new connections", "subject", cert.Subject.String(),
				"serial", cert.SerialNumber.String(), "not-after", cert.NotAfter)
		}
	}
	if s.tokens != nil {
		if err := s.tokens.Reload(); err != nil {
			s.log.Error("reload: admin tokens kept", "err", err)
			errs = append(errs, fmt.Errorf("reload admin tokens: %w", err))
		} else {
			s.log.Info("reload: admin tokens loaded", "file", s.tokens.Path(), "tokens", s.tokens.Len())
		}
	}
	return errors.Join(errs...)
}
