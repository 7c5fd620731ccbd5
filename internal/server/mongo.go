package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/tlsconf"
	"github.com/mayfly/mayfly/internal/wire/mongo"
)

// mongoSide is the document model and its MongoDB wire front end.
type mongoSide struct {
	db   *docdb.Engine
	wire *mongo.Server
}

// documentKinds are the expiry kinds MongoDB's metrics.ttl counts.
var documentKinds = []expiry.Kind{expiry.KindTTLIndex, expiry.KindPolicy}

// openMongo opens the document model on the server's storage (its TTL
// indexes register themselves with the engine) and builds the MongoDB wire
// front end, with the engine's parameters and statistics.
func (s *Server) openMongo() (*mongoSide, error) {
	db, err := docdb.Open(docdb.Options{
		Store:      s.store,
		Now:        s.cfg.Now,
		Visibility: s.cfg.Visibility,
		Expiry:     s.engine,
		Logger:     s.log,
		TempDir:    filepath.Join(s.cfg.Dir, "tmp"),
		Events: events.Options{Retention: s.cfg.EventsRetention, MaxBytes: s.cfg.EventsMaxBytes,
			ContentRetention: events.ContentRetentionFor(s.store.PurgeStats().After)},
		ChangeLog: s.cfg.ChangeStreams,
	})
	if err != nil {
		return nil, fmt.Errorf("open document data: %w", err)
	}
	if err := applyQueryParameters(db, s.cfg.Parameters); err != nil {
		db.Close()
		return nil, err
	}
	testCommands, err := testCommandsEnabled(s.cfg.Parameters)
	if err != nil {
		db.Close()
		return nil, err
	}
	wire := mongo.NewServer(mongo.Options{
		DB:         db,
		ReplicaSet: s.mongoReplicaSet(),
		Logger:     s.log,
		RAMLog:     s.ramLog,
		Now:        s.cfg.Now,
		Parameters: append(append(s.expiryParameters(), queryParameters(db)...),
			mongo.Parameter{Name: testCommandsParameter, Get: func() any { return testCommands }, StartupOnly: true}),
		TestCommands: testCommands,
		CmdLineOpts:  s.cmdLineOpts(),
		DBPath:       s.cfg.Dir,
		Auth:         s.cfg.MongoAuth,
		// net.maxIncomingConnections, and the frame timeout.
		MaxConnections: s.cfg.MongoMaxConnections,
		FrameTimeout:   wireFrameTimeout(s.cfg.FrameTimeout),
		ObserveCommand: s.observeCommand("mongo"),
		Status: []mongo.StatusSection{
			{Path: "metrics.ttl", Value: s.ttlMetrics},
			{Path: "batchedDeletes", Value: s.batchedDeletes},
			{Path: "metrics.purge", Value: s.purgeMetrics},
		},
	})
	return &mongoSide{db: db, wire: wire}, nil
}

// wireFrameTimeout is the frame timeout the wire servers are given: the
// configured one, or no limit (a negative value to them) for zero.
func wireFrameTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// expiryParameters exposes the engine's parameters (ttlMonitorSleepSecs,
// ...) to getParameter and setParameter.
func (s *Server) expiryParameters() []mongo.Parameter {
	var out []mongo.Parameter
	for _, p := range expiry.Parameters() {
		name := p.Name
		out = append(out, mongo.Parameter{
			Name: name,
			Get: func() any {
				v, err := s.engine.GetParameter(name)
				if err != nil {
					return nil
				}
				return v
			},
			Set: func(v any) error {
				_, err := s.engine.SetParameter(name, v)
				return parameterError(err)
			},
		})
	}
	return out
}

// parameterError turns the engine's parameter errors into MongoDB's.
func parameterError(err error) error {
	if err == nil {
		return nil
	}
	var pe *expiry.ParamError
	if errors.As(err, &pe) {
		return mongoerr.New(mongoerr.BadValue, pe.Message)
	}
	return err
}

// backlogCountTimeout bounds the counting of stale backlogs that a
// serverStatus does.
const backlogCountTimeout = 5 * time.Second

// ttlMetrics is serverStatus's metrics.ttl: MongoDB's counters (int64, as
// MongoDB's Counter64) plus mayfly's lag quantiles and backlog, counted
// again for the sources whose count is stale (whether or not the TTL
// monitor runs).
func (s *Server) ttlMetrics() bson.D {
	ctx, cancel := context.WithTimeout(context.Background(), backlogCountTimeout)
	s.engine.RefreshBacklogs(ctx)
	cancel()
	st := s.engine.Stats()
	var deletedDocs, deletedKeys int64
	var lag expiry.Histogram
	for _, k := range st.Kinds {
		if isDocumentKind(k.Kind) {
			deletedDocs += k.DeletedItems
			deletedKeys += k.DeletedKeys
			lag = lag.Merge(k.Lag)
		}
	}
	var backlogTotal int64
	perIndex := bson.D{}
	for _, src := range st.Sources {
		if !isDocumentKind(src.Kind) {
			continue
		}
		if src.BacklogKnown {
			backlogTotal += src.Backlog
		}
		perIndex = append(perIndex, bson.E{Key: src.Name, Value: bson.D{
			{Key: "deletedDocuments", Value: src.DeletedItems},
			{Key: "backlog", Value: src.Backlog},
			{Key: "lagMillis", Value: lagMillis(src.Lag)},
		}})
	}
	return bson.D{
		{Key: "passes", Value: st.Passes},
		{Key: "subPasses", Value: st.SubPasses},
		{Key: "deletedDocuments", Value: deletedDocs},
		{Key: "deletedKeys", Value: deletedKeys},
		{Key: "invalidTTLIndexSkips", Value: int64(0)}, // invalid values are refused at create and collMod
		{Key: "lagMillis", Value: lagMillis(lag)},
		{Key: "backlog", Value: backlogTotal},
		{Key: "sources", Value: perIndex},
	}
}

func lagMillis(h expiry.Histogram) bson.D {
	return bson.D{
		{Key: "count", Value: int64(h.Count)},
		{Key: "p50", Value: h.P50().Milliseconds()},
		{Key: "p99", Value: h.P99().Milliseconds()},
		{Key: "max", Value: h.Max.Milliseconds()},
	}
}

// cmdLineOpts answers getCmdLineOpts: the command line as given, and the
// effective settings under MongoDB's configuration names.
func (s *Server) cmdLineOpts() *mongo.CmdLineOpts {
	host, port, _ := net.SplitHostPort(s.cfg.MongoAddr)
	portNum, _ := strconv.Atoi(port)
	netOpts := bson.D{{Key: "bindIp", Value: host}, {Key: "port", Value: int32(portNum)}}
	if t := s.mongoTLSOptions(); t != nil {
		netOpts = append(netOpts, bson.E{Key: "tls", Value: t})
	}
	parsed := bson.D{
		{Key: "net", Value: netOpts},
	}
	if s.cfg.MongoAuth {
		parsed = append(parsed, bson.E{Key: "security", Value: bson.D{{Key: "authorization", Value: "enabled"}}})
	}
	parsed = append(parsed, bson.E{Key: "storage", Value: bson.D{{Key: "dbPath", Value: s.cfg.Dir}}})
	return &mongo.CmdLineOpts{Argv: s.cfg.Argv, Parsed: parsed}
}

// mongoTLSOptions are the net.tls settings in effect under MongoDB's
// configuration names: the mode, the files, whether clients may come
// without a certificate, and the protocols below the minimum version as
// disabled; nil without TLS.
func (s *Server) mongoTLSOptions() bson.D {
	if s.tls == nil {
		return nil
	}
	o := s.tls.Options()
	t := bson.D{{Key: "mode", Value: "requireTLS"}, {Key: "certificateKeyFile", Value: o.CertFile}}
	if o.CAFile != "" {
		t = append(t, bson.E{Key: "CAFile", Value: o.CAFile})
		if s.tls.ClientAuth() != tlsconf.ClientAuthRequired {
			t = append(t, bson.E{Key: "allowConnectionsWithoutCertificates", Value: true})
		}
	}
	disabled := "TLS1_0,TLS1_1"
	if s.tls.MinVersion() == "1.3" {
		disabled = "TLS1_0,TLS1_1,TLS1_2"
	}
	return append(t, bson.E{Key: "disabledProtocols", Value: disabled})
}

// batchedDeletes is serverStatus's batchedDeletes section, which TTL
// deletions feed in MongoDB while ttlMonitorBatchDeletes is on: every
// ReapBatch call of a document source is then one batch. Deletions with it
// off are not batched and not counted. Batches of sources dropped since
// are not counted; docs are.
func (s *Server) batchedDeletes() bson.D {
	st := s.engine.Stats()
	var batches, docs int64
	for _, src := range st.Sources {
		if isDocumentKind(src.Kind) {
			batches += src.BatchedReaps
		}
	}
	for _, k := range st.Kinds {
		if isDocumentKind(k.Kind) {
			docs += k.BatchedItems
		}
	}
	return bson.D{{Key: "batches", Value: batches}, {Key: "docs", Value: docs}}
}

func isDocumentKind(k expiry.Kind) bool {
	for _, dk := range documentKinds {
		if k == dk {
			return true
		}
	}
	return false
}
