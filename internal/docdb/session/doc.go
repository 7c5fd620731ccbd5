// Package session is mayfly's registry of logical sessions: the sessions
// clients name with lsid, when each was last used, and the transaction
// number each has reached, which decides whether a write carrying
// txnNumber is new, a retry, or too old.
//
// # Design
//
// A Registry maps a session's key (its id and its user's hash) to a
// Session. The clock is the caller's: every use passes the time, and Idle
// hands out the sessions unused for longer than the timeout, removed from
// the registry. A session serializes its own commands through its lock,
// so that a retry never races the write it retries.
//
// The registry holds no storage: what must survive a restart (the replies
// of retryable writes, the marks of committed transactions, the session
// records of config.system.sessions) is
// kept by the document database; a session seen for the first time since
// a restart is given its transaction number back with Resume.
//
// # Testing
//
// Table tests of the transaction-number rules and of idle sessions on a
// fake clock.
package session
