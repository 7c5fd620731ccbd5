package resp

// ClientsChanged returns a channel closed at the next connection or
// departure of a client, or when one starts or stops blocking, for tests
// that wait for one.
func (s *Server) ClientsChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// StopWalks gives the stop signal Shutdown gives when its deadline passes,
// so a test sees long walks and scripts give up without shutting the
// server down.
func (s *Server) StopWalks() { s.signalStop() }

// BlockedClients is INFO's blocked_clients.
func (s *Server) BlockedClients() int { return blockedClients(s) }
