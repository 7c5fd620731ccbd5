package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/bench"
)

func newBenchCommand() *cobra.Command {
	opts := bench.DefaultOptions()
	var (
		respAddrs []string
		tlsCAFile string
		mongoURIs []string
		dataDirs  []string
		format    string
		progress  string
		out       string
	)
	cmd := &cobra.Command{
		Use:   "bench [workload...]",
		Short: "Measure mayfly and its peers with the same load",
		Long: `Drive any RESP server (--resp-addr) and any MongoDB-compatible server
(--mongo-uri) with the same workloads, so one run measures mayfly and its peers
side by side. Give each server a label (label=address); figures of the label
--baseline (mayfly) are divided by each peer's, and the issue's targets compare
the labels mayfly, redis and ferretdb.

Workloads (default: all that apply to the targets given, but scale):
  kv      SET EX, GET, INCR, HSET and a mix over --clients connections, without
          and with pipelines of --pipeline commands (RESP)
  doc     insertOne, insertMany of 100 (counted in documents), findOne by _id
          and by an indexed field, updateOne and findOneAndUpdate over
          --clients connections on a collection with a TTL index (MongoDB)
  storm   --storm-items items due at one instant: time until the server's own
          counters say all are physically gone, deletions per second, and
          foreground read p99 before, during and after
  sparse  --sparse-due items due at one instant among --sparse-hidden items
          with long TTLs: time until they are gone (bounded by --timeout)
  steady  --steady-rate items per second with TTL --steady-ttl for --steady-for:
          backlog and deletion lag over time
  purge   items carrying marker bytes unique to the run: time until no file of
          the server's --data-dir holds them, and the disk usage over time
          (only targets given a --data-dir)
  scale   --keys keys, half with a TTL, --scale-due of them due at one
          instant: resident memory, time until the due ones are gone, and the
          latency of DBSIZE, INFO keyspace, RANDOMKEY and SCAN over the rest
          (RESP; runs only when named)
  docscale --scale-docs documents with a TTL index and two secondary indexes:
          insert rate, resident memory, and findOne by _id latency at
          --read-rate alone and while --scale-insert-rate insertOne/s run
          (MongoDB; runs only when named)

kv and doc measure through a lean client of bench's own by default (--client
lean): one connection per client speaking RESP2 or OP_MSG directly, as
redis-benchmark does, so the figures are the server's. go-redis and the MongoDB
Go driver (--client driver) cost about as much CPU as the server itself, and on
a small machine they, not the server, set the throughput. The expiry workloads
always use the drivers: their rates are low.

Physical deletion is read from Redis INFO (keyspace keys=, stats expired_keys)
and MongoDB serverStatus (metrics.ttl.deletedDocuments). The bench FLUSHes its
RESP db (--db) and drops its MongoDB database (--database): point it only at
servers kept for benchmarking. Figures are medians of --runs runs.`,
		Example: `  mayfly bench --resp-addr mayfly=127.0.0.1:6380 --resp-addr redis=127.0.0.1:6379 kv storm
  mayfly bench --mongo-uri mayfly=mongodb://127.0.0.1:27018/ --mongo-uri ferretdb=mongodb://127.0.0.1:27017/ doc
  mayfly bench --resp-addr 127.0.0.1:6380 --data-dir /var/lib/mayfly purge --timeout 11m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := bench.ParseTargets(respAddrs, mongoURIs, dataDirs)
			if err != nil {
				return err
			}
			if tlsCAFile != "" {
				pem, err := os.ReadFile(tlsCAFile)
				if err != nil {
					return fmt.Errorf("--tls-ca-file: %w", err)
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					return fmt.Errorf("--tls-ca-file: %s holds no PEM certificate", tlsCAFile)
				}
				for i := range targets {
					targets[i].TLS = &tls.Config{RootCAs: pool}
				}
			}
			opts.Targets = targets
			opts.Workloads = args
			if format != "text" && format != "json" {
				return fmt.Errorf("--format: want text or json, not %q", format)
			}
			switch progress {
			case "auto":
				opts.Progress = bench.NewProgress(cmd.ErrOrStderr(), bench.IsTerminal(os.Stderr))
			case "plain":
				opts.Progress = bench.NewProgress(cmd.ErrOrStderr(), false)
			case "none":
			default:
				return fmt.Errorf("--progress: want auto, plain or none, not %q", progress)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := bench.Run(ctx, opts)
			if err != nil {
				return err
			}
			if out != "" {
				if err := writeBenchJSONFile(out, rep); err != nil {
					return err
				}
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return writeBenchText(cmd.OutOrStdout(), rep)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&respAddrs, "resp-addr", nil, "RESP server as [label=]host:port (repeatable)")
	f.StringVar(&tlsCAFile, "tls-ca-file", "", "reach every server over TLS, verifying its certificate against the authorities of PEM `FILE`")
	f.StringArrayVar(&mongoURIs, "mongo-uri", nil, "MongoDB server as [label=]mongodb://... (repeatable)")
	f.StringArrayVar(&dataDirs, "data-dir", nil, "a server's data directory as [label=]DIR, for purge (repeatable)")
	f.StringVar(&opts.Baseline, "baseline", opts.Baseline, "label whose figures are divided by each peer's")
	f.IntVar(&opts.Runs, "runs", opts.Runs, "runs of each workload; figures are medians")
	f.IntVar(&opts.Clients, "clients", opts.Clients, "concurrent connections of kv and doc")
	f.DurationVar(&opts.Duration, "duration", opts.Duration, "length of each kv and doc phase")
	f.IntVar(&opts.Pipeline, "pipeline", opts.Pipeline, "depth of kv's pipelined phases (0 or 1: none)")
	f.StringVar((*string)(&opts.Client), "client", string(opts.Client), "client of kv and doc: lean (bench's own RESP2/OP_MSG client, so the figures are the server's, not the client's) or driver (go-redis, the MongoDB Go driver)")
	f.IntVar(&opts.Keys, "keys", opts.Keys, "key space of kv, keys loaded by scale")
	f.IntVar(&opts.ValueSize, "value-size", opts.ValueSize, "bytes per value")
	f.IntVar(&opts.DB, "db", opts.DB, "RESP logical database to use (it is flushed)")
	f.StringVar(&opts.Database, "database", opts.Database, "MongoDB database to use (it is dropped)")
	f.IntVar(&opts.StormItems, "storm-items", opts.StormItems, "items due at one instant in storm")
	f.IntVar(&opts.SparseDue, "sparse-due", opts.SparseDue, "items due at one instant in sparse")
	f.IntVar(&opts.SparseHidden, "sparse-hidden", opts.SparseHidden, "items with long TTLs hiding them in sparse")
	f.IntVar(&opts.SteadyRate, "steady-rate", opts.SteadyRate, "items written (and expiring) per second in steady")
	f.DurationVar(&opts.SteadyTTL, "steady-ttl", opts.SteadyTTL, "TTL of steady's items")
	f.DurationVar(&opts.SteadyFor, "steady-for", opts.SteadyFor, "how long steady writes")
	f.IntVar(&opts.PurgeItems, "purge-items", opts.PurgeItems, "items carrying the marker in purge")
	f.IntVar(&opts.ScaleDue, "scale-due", opts.ScaleDue, "keys of scale due at one instant")
	f.BoolVar(&opts.ScaleKeep, "scale-keep", opts.ScaleKeep, "leave scale's keys and docscale's documents loaded when they end (to time a restart with them)")
	f.IntVar(&opts.ScaleDocs, "scale-docs", opts.ScaleDocs, "documents loaded by docscale")
	f.IntVar(&opts.ScaleInsertRate, "scale-insert-rate", opts.ScaleInsertRate, "documents per second docscale inserts while it reads")
	f.DurationVar(&opts.PurgeScan, "purge-scan", opts.PurgeScan, "period of purge's scans of the data directory")
	f.IntVar(&opts.LiveItems, "live-items", opts.LiveItems, "items without expiry read in the foreground during expiry workloads")
	f.IntVar(&opts.ReadRate, "read-rate", opts.ReadRate, "foreground reads per second during expiry workloads")
	f.IntVar(&opts.Readers, "readers", opts.Readers, "connections of the foreground reads")
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "bound of each wait for deletions or purge")
	f.DurationVar(&opts.Lead, "lead", opts.Lead, "time between the end of a load and its due instant, and reads after the last deletion")
	f.DurationVar(&opts.Poll, "poll", opts.Poll, "period of reading the servers' deletion counters")
	f.DurationVar(&opts.Window, "window", opts.Window, "window of the latency-over-time charts")
	f.StringVar(&opts.ChartDir, "charts", "", "write PNG charts of storm, steady and purge into `DIR`")
	f.StringVar(&format, "format", "text", "text or json")
	f.StringVar(&out, "out", "", "also write the JSON report to `FILE`")
	f.StringVar(&progress, "progress", "auto", "auto (a status line on a terminal, plain lines otherwise), plain or none")
	return cmd
}

func writeBenchJSONFile(path string, rep *bench.Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeBenchText prints a report for people: the machine, each result,
// the ratio table and the targets each workload is held to.
func writeBenchText(w io.Writer, rep *bench.Report) error {
	fmt.Fprintf(w, "machine: %s\n", rep.Machine)
	fmt.Fprintf(w, "runs: %d, elapsed %.1f s\n\n", rep.Options.Runs, rep.Elapsed)
	if err := bench.WriteResults(w, rep.Results); err != nil {
		return err
	}
	if len(rep.Ratios) > 0 {
		fmt.Fprintf(w, "\nratios (%s / peer):\n\n", rep.Options.Baseline)
		if err := bench.WriteRatioTable(w, rep.Ratios, rep.Options.Baseline); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\ntargets:\n\n")
	if err := bench.WriteChecks(w, rep.Checks); err != nil {
		return err
	}
	for _, c := range rep.Charts {
		if _, err := fmt.Fprintf(w, "chart: %s\n", c); err != nil {
			return err
		}
	}
	return nil
}
