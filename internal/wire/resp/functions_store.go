package resp

import "github.com/mayfly/mayfly/internal/script"

// loadFunctions loads the function libraries stored with the data (by
// FUNCTION LOAD, DELETE, FLUSH and RESTORE) into the script engine. A
// payload that no longer loads is logged and left stored.
func (s *Server) loadFunctions() {
	tx := s.kv.Begin()
	payload, err := tx.Functions()
	tx.Rollback()
	if err != nil {
		s.log.Error("resp: read the stored functions", "err", err)
		return
	}
	if payload == nil {
		return
	}
	if err := s.scripts.RestoreLibraries(payload, script.RestoreFlush); err != nil {
		s.log.Error("resp: load the stored functions", "err", err)
	}
}
