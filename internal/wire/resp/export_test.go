package resp

// ClientsChanged returns a channel closed at the next connection or
// departure of a client, for tests that wait for one.
func (s *Server) ClientsChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}
