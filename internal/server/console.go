package server

import (
	"github.com/mayfly/mayfly/internal/admin"
)

// mountConsole adds the web console to the admin server; Run takes its
// live samples.
func (s *Server) mountConsole(adminSrv *admin.Server) error {
	opts := admin.ConsoleOptions{Engine: s.engine, Storage: s.storageReport, Now: s.cfg.Now, Logger: s.log,
		Tokens: s.tokens, RequireAuth: s.cfg.AdminRequireAuthForMetrics}
	if s.mongo != nil {
		opts.Policies, opts.TTLIndexes, opts.TTLIndexEditor = s.mongo.db, s.mongo.db, s.mongo.db
	}
	if s.redis != nil {
		opts.KeyPrefixes = s.redis.kv
	}
	c, err := admin.MountConsole(adminSrv, opts)
	if err != nil {
		return err
	}
	s.console = c
	return nil
}

// storageReport gathers the console's storage figures.
func (s *Server) storageReport() (admin.StorageReport, error) {
	m := s.store.Metrics()
	rep := admin.StorageReport{
		DiskBytes:            m.DiskSpaceUsage,
		PendingSpans:         m.Purge.PendingSpans,
		OldestPendingSeconds: m.Purge.OldestPending.Seconds(),
		PurgeAfterSeconds:    m.Purge.After.Seconds(),
		PurgeCycles:          m.Purge.Cycles,
		PurgeFailures:        m.Purge.Failures,
	}
	usage, err := s.store.KeyspaceUsage()
	if err != nil {
		return rep, err
	}
	for _, u := range usage {
		rep.Keyspaces = append(rep.Keyspaces, admin.KeyspaceBytes{Name: u.Name, Bytes: u.Bytes})
	}
	if rep.PendingPurgeBytes, err = s.store.PendingPurgeBytes(); err != nil {
		return rep, err
	}
	return rep, nil
}
