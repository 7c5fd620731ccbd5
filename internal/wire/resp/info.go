package resp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mayfly/mayfly/internal/kv"
)

// The sections of INFO: with no argument or "default" the default ones;
// "all" and "everything" add the others (mayfly has no modules, so the two
// are the same). Section names are matched without regard to case.
var (
	infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu",
		"modules", "errorstats", "cluster", "keyspace"}
	infoAll = append([]string{"commandstats"}, infoDefault...)
)

// info renders INFO. tx is the caller's open transaction (nil outside a
// command, in which case one is opened for the keyspace section).
func (s *Server) info(ctx context.Context, tx *kv.Tx, sections []string) (string, error) {
	want := map[string]bool{}
	if len(sections) == 0 {
		sections = []string{"default"}
	}
	for _, sec := range sections {
		switch sec = strings.ToLower(sec); sec {
		case "default":
			for _, d := range infoDefault {
				want[d] = true
			}
		case "all", "everything":
			for _, d := range infoAll {
				want[d] = true
			}
		default:
			want[sec] = true
		}
	}
	var b strings.Builder
	section := func(name string, f func()) {
		if !want[name] {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		fmt.Fprintf(&b, "# %s\r\n", strings.ToUpper(name[:1])+name[1:])
		f()
	}
	line := func(k string, v any) { fmt.Fprintf(&b, "%s:%v\r\n", k, v) }
	now := s.opts.Now()
	st := s.Stats()
	trackClients, trackKeys, trackItems, trackPrefixes := s.tracking.counts()
	section("server", func() {
		line("redis_version", Version)
		line("redis_mode", "standalone")
		line("os", runtime.GOOS+" "+runtime.GOARCH)
		line("arch_bits", 64)
		line("go_version", runtime.Version())
		line("process_id", os.Getpid())
		line("tcp_port", s.port())
		line("server_time_usec", now.UnixMicro())
		line("uptime_in_seconds", int64(now.Sub(s.start).Seconds()))
		line("uptime_in_days", int64(now.Sub(s.start).Hours()/24))
		line("hz", s.cfg.get("hz"))
		line("configured_hz", s.cfg.get("hz"))
		line("executable", os.Args[0])
	})
	section("clients", func() {
		line("connected_clients", st.ConnectedClients)
		line("maxclients", s.cfg.get("maxclients"))
		line("blocked_clients", blockedClients(s))
		line("tracking_clients", trackClients)
		line("pubsub_clients", st.PubSubClients)
		line("watching_clients", st.WatchingClients)
	})
	section("memory", func() {
		m := readMemory()
		used := s.kv.UsedMemory()
		peak := s.notePeakMemory(used)
		e := s.kv.Eviction()
		line("used_memory", used)
		line("used_memory_human", humanBytes(uint64(used)))
		line("used_memory_rss", m.total)
		line("used_memory_rss_human", humanBytes(m.total))
		line("used_memory_peak", peak)
		line("used_memory_peak_human", humanBytes(uint64(peak)))
		line("used_memory_startup", kv.StartupMemory)
		line("used_memory_dataset", s.kv.DatasetMemory())
		line("allocator_allocated", m.heapObjects)
		line("allocator_resident", m.heapMapped)
		line("number_of_cached_scripts", s.scripts.Len())
		libs, fns := s.scripts.FunctionCounts()
		line("number_of_functions", fns)
		line("number_of_libraries", libs)
		line("maxmemory", e.MaxMemory)
		line("maxmemory_human", humanBytes(uint64(e.MaxMemory)))
		line("maxmemory_policy", e.Policy.String())
		line("mem_not_counted_for_evict", 0)
		line("lazyfree_pending_objects", 0)
		line("mem_allocator", "go")
	})
	section("persistence", func() {
		line("loading", 0)
		line("async_loading", 0)
		line("rdb_changes_since_last_save", 0)
		line("rdb_bgsave_in_progress", 0)
		line("rdb_last_save_time", s.lastSave.Load())
		line("rdb_last_bgsave_status", "ok")
		line("aof_enabled", 0)
		line("aof_rewrite_in_progress", 0)
	})
	section("stats", func() {
		ks := s.kv.Stats()
		var es ExpiryStats
		if s.opts.ExpiryStats != nil {
			es = s.opts.ExpiryStats()
		}
		line("total_connections_received", st.TotalConnections)
		line("total_commands_processed", st.TotalCommands)
		line("total_net_input_bytes", st.NetInputBytes)
		line("total_net_output_bytes", st.NetOutputBytes)
		line("rejected_connections", st.RejectedConnections)
		line("expired_subkeys", s.kv.ExpiredFields())
		line("expired_keys", ks.ExpiredKeys)
		line("expired_stale_perc", fmt.Sprintf("%.2f", es.StalePerc))
		line("expired_time_cap_reached_count", es.TimeCapReached)
		line("expire_cycle_cpu_milliseconds", es.CPUMilliseconds)
		line("evicted_keys", ks.EvictedKeys)
		line("keyspace_hits", ks.KeyspaceHits)
		line("keyspace_misses", ks.KeyspaceMisses)
		line("pubsub_channels", st.PubSubChannels)
		line("pubsub_patterns", st.PubSubPatterns)
		line("migrate_cached_sockets", 0)
		line("tracking_total_keys", trackKeys)
		line("tracking_total_items", trackItems)
		line("tracking_total_prefixes", trackPrefixes)
		line("total_error_replies", st.ErrorReplies)
		line("acl_access_denied_auth", s.acl.deniedAuth.Load())
		line("acl_access_denied_cmd", s.acl.deniedCmd.Load())
		line("acl_access_denied_key", s.acl.deniedKey.Load())
		line("acl_access_denied_channel", s.acl.deniedChannel.Load())
	})
	section("replication", func() {
		if r := s.opts.Replica; r != nil {
			replicationInfo(r, s.replID, func(name string, v any) { line(name, v) })
			return
		}
		line("role", "master")
		line("connected_slaves", 0)
		line("master_failover_state", "no-failover")
		line("master_replid", s.replID)
		line("master_replid2", strings.Repeat("0", 40))
		line("master_repl_offset", 0)
		line("second_repl_offset", -1)
		line("repl_backlog_active", 0)
		line("repl_backlog_size", s.cfg.get("repl-backlog-size"))
		line("repl_backlog_first_byte_offset", 0)
		line("repl_backlog_histlen", 0)
	})
	section("cpu", func() {
		line("used_cpu_sys", "0.000000")
		line("used_cpu_user", "0.000000")
		line("used_cpu_sys_children", "0.000000")
		line("used_cpu_user_children", "0.000000")
	})
	section("modules", func() {})
	section("commandstats", func() {
		for _, l := range s.cmdStats.commandLines() {
			b.WriteString(l + "\r\n")
		}
	})
	section("errorstats", func() {
		for _, l := range s.cmdStats.errorLines() {
			b.WriteString(l + "\r\n")
		}
	})
	section("cluster", func() {
		line("cluster_enabled", 0)
	})
	var err error
	section("keyspace", func() {
		var infos []kv.KeyspaceInfo
		if tx != nil {
			db := tx.DB()
			for i := 0; i < kv.NumDBs && err == nil; i++ {
				tx.Use(i)
				var ki kv.KeyspaceInfo
				if ki, err = tx.KeyspaceInfo(); ki.Keys > 0 {
					infos = append(infos, ki)
				}
			}
			tx.Use(db)
		} else {
			infos, err = s.kv.Keyspace(ctx)
		}
		for _, ki := range infos {
			fmt.Fprintf(&b, "db%d:keys=%d,expires=%d,avg_ttl=%d,subexpiry=%d\r\n", ki.DB, ki.Keys, ki.Expires, ki.AvgTTL, ki.Subexpiry)
		}
	})
	return b.String(), err
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

func (s *Server) port() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ln := range s.listeners {
		addr := ln.Addr().String()
		if i := strings.LastIndexByte(addr, ':'); i >= 0 {
			return addr[i+1:]
		}
	}
	return "0"
}

// resetStats is CONFIG RESETSTAT.
func (s *Server) resetStats() {
	s.stats.commands.Store(0)
	s.stats.connections.Store(0)
	s.stats.rejected.Store(0)
	s.stats.netIn.Store(0)
	s.stats.netOut.Store(0)
	s.stats.errorReplies.Store(0)
	s.kv.ResetStats()
	s.kv.ResetFieldStats()
	s.cmdStats.reset()
}
