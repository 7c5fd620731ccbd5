package mongo

import (
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/mongoauth"
)

// metrics are the Server's counters, reported by serverStatus. They are
// atomics so that every connection updates them without locking.
type metrics struct {
	bytesIn, bytesOut, requests atomic.Int64
	totalConns, rejectedConns   atomic.Int64
	// retriedCommands counts the retryable writes answered from their
	// stored reply (serverStatus transactions.retriedCommandsCount).
	retriedCommands atomic.Int64

	// opcounters, counted as MongoDB does: insert per document, update and
	// delete per statement, query per find, getmore per getMore, command
	// for every other command.
	opInsert, opQuery, opUpdate, opDelete, opGetMore, opCommand atomic.Int64

	// metrics.document.
	docDeleted, docInserted, docReturned, docUpdated atomic.Int64

	// metrics.commands, one counter per command name of the table.
	commands        map[string]*cmdCounter
	unknownCommands atomic.Int64

	// security.authentication.mechanisms: per mechanism, authentications
	// received and successful, the speculative ones apart; and the
	// commands refused for a missing privilege.
	authMechs     map[mongoauth.Mechanism]*authCounters
	authzFailures atomic.Int64

	// opLatencies, and each collection's for $collStats latencyStats.
	latencies     opLatencies
	collLatencies collectionLatencies
}

// countedMechanisms are the mechanisms serverStatus counts, in its order.
var countedMechanisms = []mongoauth.Mechanism{mongoauth.MongoDBX509, mongoauth.ScramSHA1, mongoauth.ScramSHA256}

type authCounters struct {
	received, successful                       atomic.Int64
	speculativeReceived, speculativeSuccessful atomic.Int64
}

// securityDoc is serverStatus's security section.
func (m *metrics) securityDoc() bson.D {
	mechs := bson.D{}
	for _, mech := range countedMechanisms {
		a := m.authMechs[mech]
		mechs = append(mechs, bson.E{Key: string(mech), Value: bson.D{
			{Key: "speculativeAuthenticate", Value: bson.D{
				{Key: "received", Value: a.speculativeReceived.Load()},
				{Key: "successful", Value: a.speculativeSuccessful.Load()},
			}},
			{Key: "authenticate", Value: bson.D{
				{Key: "received", Value: a.received.Load()},
				{Key: "successful", Value: a.successful.Load()},
			}},
		}})
	}
	return bson.D{{Key: "authentication", Value: bson.D{{Key: "mechanisms", Value: mechs}}}}
}

type cmdCounter struct {
	total, failed atomic.Int64
}

func newMetrics() *metrics {
	m := &metrics{commands: make(map[string]*cmdCounter, len(commandTable)), authMechs: map[mongoauth.Mechanism]*authCounters{}}
	for _, mech := range countedMechanisms {
		m.authMechs[mech] = &authCounters{}
	}
	for name := range commandTable {
		m.commands[name] = &cmdCounter{}
	}
	return m
}

// commandsDoc is serverStatus's metrics.commands: {<UNKNOWN>: n, name:
// {failed, total}, ...} for the commands run at least once, sorted by name.
func (m *metrics) commandsDoc() bson.D {
	d := bson.D{{Key: "<UNKNOWN>", Value: m.unknownCommands.Load()}}
	for _, name := range commandNames {
		c := m.commands[name]
		total := c.total.Load()
		if total == 0 {
			continue
		}
		d = append(d, bson.E{Key: name, Value: bson.D{
			{Key: "failed", Value: c.failed.Load()},
			{Key: "total", Value: total},
		}})
	}
	return d
}

func (m *metrics) opcountersDoc() bson.D {
	return bson.D{
		{Key: "insert", Value: m.opInsert.Load()},
		{Key: "query", Value: m.opQuery.Load()},
		{Key: "update", Value: m.opUpdate.Load()},
		{Key: "delete", Value: m.opDelete.Load()},
		{Key: "getmore", Value: m.opGetMore.Load()},
		{Key: "command", Value: m.opCommand.Load()},
	}
}

func (m *metrics) documentDoc() bson.D {
	return bson.D{
		{Key: "deleted", Value: m.docDeleted.Load()},
		{Key: "inserted", Value: m.docInserted.Load()},
		{Key: "returned", Value: m.docReturned.Load()},
		{Key: "updated", Value: m.docUpdated.Load()},
	}
}
