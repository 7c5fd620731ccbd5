package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/tlsconf"
	"github.com/mayfly/mayfly/internal/wire/resp"
)

// errRedisOpenUnderAuth refuses a server whose MongoDB side requires
// authentication while its Redis side would serve anyone: --auth asks for
// access control, so both protocols must have it.
var errRedisOpenUnderAuth = errors.New("--auth: the Redis listener would serve every client without a password; " +
	"give the default user one (--resp-config requirepass=SECRET), or users in --resp-aclfile, or disable it with --resp-addr \"\"")

// redisSide is the Redis data model, its expiry sources and its protocol
// front end.
type redisSide struct {
	kv      *kv.Store
	sources []expiry.Source
	resp    *resp.Server
}

// openRedis opens the Redis data model on the server's storage, registers
// its expiry sources with the engine and builds the RESP front end.
func (s *Server) openRedis(ctx context.Context) (*redisSide, error) {
	store, err := kv.Open(ctx, kv.Options{
		Store:  s.store,
		Now:    s.cfg.Now,
		Waker:  s.engine,
		Logger: s.log,
	})
	if err != nil {
		return nil, fmt.Errorf("open redis data: %w", err)
	}
	// Keys and expiring hash fields are separate sources: one per logical
	// database each.
	r := &redisSide{kv: store, sources: append(store.Sources(), store.FieldSources()...)}
	for _, src := range r.sources {
		if err := s.engine.Register(src); err != nil {
			return nil, fmt.Errorf("register %s: %w", src.Name(), err)
		}
	}
	r.resp = resp.NewServer(resp.Options{
		KV:              store,
		Logger:          s.log,
		Now:             s.cfg.Now,
		ObserveLatency:  s.engine.ObserveForeground,
		ObserveCommand:  s.observeCommand("resp"),
		ExpiryStats:     s.redisExpiryStats,
		SetActiveExpire: func(on bool) { s.setRedisActiveExpire(r, on) },
		MaxClients:      s.cfg.RespMaxClients,
		EventLoop:       s.cfg.RespEventLoop,
		FrameTimeout:    wireFrameTimeout(s.cfg.FrameTimeout),
		Shutdown:        s.requestStop,
		TLSParams:       s.redisTLSParams(),
		ACLFile:         s.cfg.RespACLFile,
		Replica:         s.respReplica(),
	})
	if err := r.resp.LoadACL(); err != nil {
		return nil, fmt.Errorf("load redis aclfile: %w", err)
	}
	for _, kv := range s.cfg.RespConfig {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("redis config %q: want name=value", kv)
		}
		if err := r.resp.SetConfig(name, value); err != nil {
			return nil, fmt.Errorf("redis config %q: %w", kv, err)
		}
	}
	if s.cfg.MongoAuth && s.cfg.RespAddr != "" && r.resp.OpenToAll() {
		return nil, errRedisOpenUnderAuth
	}
	return r, nil
}

// redisExpiryStats sums the engine's figures over the Redis sources, for
// INFO stats.
func (s *Server) redisExpiryStats() resp.ExpiryStats {
	var out resp.ExpiryStats
	for _, src := range s.engine.Stats().Sources {
		if src.Kind == expiry.KindRedisKeys || src.Kind == expiry.KindRedisField {
			out.TimeCapReached += src.TimeCapReached
			out.CPUMilliseconds += src.ReapTime.Milliseconds()
		}
	}
	return out
}

// setRedisActiveExpire is DEBUG SET-ACTIVE-EXPIRE: it takes the Redis
// sources off the sweeper (reads still hide expired keys) or puts them back.
func (s *Server) setRedisActiveExpire(r *redisSide, on bool) {
	for _, src := range r.sources {
		if on {
			if err := s.engine.Register(src); err != nil && err != expiry.ErrDuplicateSource {
				s.log.Error("re-register redis expiry source", "source", src.Name(), "err", err)
			}
		} else {
			s.engine.Unregister(src.Name())
		}
	}
}

// redisTLSParams are the CONFIG values of the TLS settings in effect, under
// Redis's names; nil without TLS.
func (s *Server) redisTLSParams() map[string]string {
	if s.tls == nil {
		return nil
	}
	o := s.tls.Options()
	key := o.KeyFile
	if key == "" {
		key = o.CertFile // the key is in the certificate's file
	}
	auth := map[tlsconf.ClientAuth]string{
		tlsconf.ClientAuthNone:     "no",
		tlsconf.ClientAuthOptional: "optional",
		tlsconf.ClientAuthRequired: "yes",
	}[s.tls.ClientAuth()]
	protocols := "TLSv1.2 TLSv1.3"
	if s.tls.MinVersion() == "1.3" {
		protocols = "TLSv1.3"
	}
	return map[string]string{
		"tls-cert-file":    o.CertFile,
		"tls-key-file":     key,
		"tls-ca-cert-file": o.CAFile,
		"tls-auth-clients": auth,
		"tls-protocols":    protocols,
	}
}
