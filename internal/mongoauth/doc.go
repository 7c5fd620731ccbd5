// Package mongoauth is MongoDB's access control model, without the wire:
// users' SCRAM credentials, the server side of a SCRAM conversation, roles
// and their privileges, and the resolution of a user's roles into the
// grants a command is checked against.
//
// # Credentials
//
// A user's password is never kept. For each mechanism the user may use,
// a ScramCredential holds a random salt, the iteration count and the two
// keys of RFC 5802: StoredKey = H(ClientKey) and ServerKey, both derived
// from SaltedPassword = PBKDF2(HMAC-H, password, salt, iterations).
// MongoDB's specifics are kept: SCRAM-SHA-1 derives from the hex MD5 of
// "user:mongo:password" (the server-side passwordDigestor), SCRAM-SHA-256
// from the SASLprep of the password (RFC 4013). The iteration counts are
// MongoDB's defaults, 10000 for SCRAM-SHA-1 and 15000 for SCRAM-SHA-256.
//
// # Conversation
//
// A ServerConversation runs one SCRAM authentication: it parses the
// client-first message (gs2 header, n=, r=), answers with the combined
// nonce (the client's followed by 24 random bytes of crypto/rand), salt and
// iterations, and checks the client-final message: channel binding, nonce,
// then the proof, compared in constant time, before it answers the server
// signature. Every malformed message is an error; nothing panics on
// client input.
//
// # Roles and privileges
//
// A privilege is a set of actions on a resource: the cluster, a database
// ({db: "x", collection: ""}, which covers the database and its
// non-system collections), a collection ({db: "x", collection: "c"}),
// a collection name in every database ({db: "", collection: "c"}), every
// database ({db: "", collection: ""}) or anyResource. System collections
// (names starting "system.") are covered only by privileges naming them
// or by anyResource, as in MongoDB. The built-in roles (read, readWrite,
// dbAdmin, dbOwner, userAdmin, clusterMonitor, clusterManager,
// hostManager, clusterAdmin, the *AnyDatabase roles, backup, restore,
// root) have MongoDB's privileges; user-defined roles add privileges and
// inherit roles. Resolve walks a user's roles (cycles are cut) into
// Grants: a set of actions per resource pattern, answered by Allows in a
// few map lookups.
//
// # Throttle
//
// A Throttle delays the answer to a failed authentication from an address
// that keeps failing: the first failure is not delayed, each further one
// doubles the delay from MinFailureDelay up to MaxFailureDelay; a success
// resets the address.
package mongoauth
