package mongo

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// The replica set commands (rs.status(), rs.conf(), rs.initiate() and the
// rest of the rs helpers) run only against the admin database, as
// MongoDB's do. On a standalone each fails with NoReplicationEnabled, as
// on a MongoDB standalone. On a member of a replica set (Options.
// ReplicaSet), replSetGetStatus, replSetGetConfig, replSetStepDown,
// replSetFreeze and replSetReconfig answer from the set; the rest answer
// that the set is managed by its raft configuration.

// replSetCommands are the replica set commands and the help listCommands
// reports for each.
var replSetCommands = map[string]string{
	"replSetAbortPrimaryCatchUp": "{ replSetAbortPrimaryCatchUp : 1 }\nAbort primary catch-up mode; immediately finish the transition to primary without fetching any further unreplicated writes from any other online nodes",
	"replSetFreeze":              "{ replSetFreeze : <seconds> }\n'freeze' state of member to the extent we can do that.  What this really means is that\nthis node will not attempt to become primary until the time period specified expires.\nYou can call again with {replSetFreeze:0} to unfreeze sooner.\nA process restart unfreezes the member also.\n",
	"replSetGetConfig":           "Returns the current replica set configuration{ replSetGetConfig : 1 }\nhttp://dochub.mongodb.org/core/replicasetcommands",
	"replSetGetRBID":             "no help defined",
	"replSetGetStatus":           "Report status of a replica set from the POV of this server\n{ replSetGetStatus : 1 }\nhttp://dochub.mongodb.org/core/replicasetcommands",
	"replSetInitiate":            "Initiate/christen a replica set.\nhttp://dochub.mongodb.org/core/replicasetcommands",
	"replSetMaintenance":         "{ replSetMaintenance : bool }\nEnable or disable maintenance mode.",
	"replSetReconfig":            "Adjust configuration of a replica set\n{ replSetReconfig : config_object }\nhttp://dochub.mongodb.org/core/replicasetcommands",
	"replSetStepDown":            "{ replSetStepDown : <seconds> }\nStep down as primary.  Will not try to reelect self for the specified time period (1 minute if no numeric secs value specified, or secs is 0).\n(If another member with same priority takes over in the meantime, it will stay primary.)\nhttp://dochub.mongodb.org/core/replicasetcommands",
	"replSetStepUp":              "Step up as primary.",
	"replSetSyncFrom":            "{ replSetSyncFrom : \"host:port\" }\nChange who this member is syncing from. Note: This will interrupt and restart an in-progress initial sync.",
	"replSetUpdatePosition":      "no help defined",
}

// ReplicaSet is what the MongoDB side knows of the replica set its server
// is a member of.
type ReplicaSet interface {
	// View describes the set as this member sees it now.
	View() ReplSetView
	// Changes counts the changes of what View reports of roles and
	// membership, and returns a channel closed at the next change. A
	// change is counted only once View shows it.
	Changes() (count int64, changed <-chan struct{})
	// Writable reports whether this member accepts writes (the primary).
	Writable() bool
	// StepDown makes this member, the primary, hand its role to another.
	StepDown() error
	// AddMember and RemoveMember change the membership; members are named
	// by their raft addresses.
	AddMember(raftAddr string) error
	RemoveMember(raftAddr string) error
}

// ReplSetView is a member's view of its set.
type ReplSetView struct {
	SetName string
	// Me is this member's MongoDB address.
	Me string
	// IsPrimary reports whether this member accepts writes.
	IsPrimary bool
	// Primary is the primary's MongoDB address, "" when none is known.
	Primary string
	// Term is the current election term; Version grows with every change
	// of membership (setVersion).
	Term, Version int64
	// Applied counts the replicated writes this member has applied.
	Applied int64
	// ElectedAt is when this member became primary (zero when it is not).
	ElectedAt time.Time
	Members   []ReplSetMember
}

// ReplSetMember is one member of the set.
type ReplSetMember struct {
	// Host is the member's MongoDB address, "" when it has not been heard
	// from yet; RaftAddr its identity in the set.
	Host, RaftAddr         string
	Self, Primary, Healthy bool
	Applied                int64
	LastHeartbeat          time.Time
}

// msgReplSet answers a replica set command.
func msgReplSet(ctx context.Context, c *conn, req *request) (bson.D, error) {
	rs := c.s.opts.ReplicaSet
	if rs == nil {
		if req.name == "replSetInitiate" {
			return nil, errorf(mongoerr.NoReplicationEnabled, "This node was not started with replication enabled.")
		}
		return nil, errorf(mongoerr.NoReplicationEnabled, "not running with --replSet")
	}
	v := rs.View()
	switch req.name {
	case "replSetGetStatus":
		return replSetStatus(c, v), nil
	case "replSetGetConfig":
		return bson.D{{Key: "config", Value: replSetConfig(v)}}, nil
	case "replSetStepDown":
		return msgReplSetStepDown(ctx, c, rs, v, req)
	case "replSetFreeze":
		return msgReplSetFreeze(c, rs, req)
	case "replSetReconfig":
		return replSetReconfig(rs, v, req)
	case "replSetInitiate":
		return nil, errorf(mongoerr.AlreadyInitialized, "already initialized")
	}
	return nil, errorf(mongoerr.CommandNotSupported, "%s is not supported: the replica set's raft configuration manages its members", req.name)
}

// Member states as replSetGetStatus reports them.
const (
	statePrimary   = 1
	stateSecondary = 2
	stateDown      = 8
)

// replOpTime is MongoDB's {ts, t} for a count of applied writes in a term.
func replOpTime(applied, term int64, at time.Time) bson.D {
	return bson.D{
		{Key: "ts", Value: bson.Timestamp{T: uint32(at.Unix()), I: uint32(applied)}},
		{Key: "t", Value: term},
	}
}

// electionID is MongoDB's electionId for a term: an ObjectID that grows
// with it.
func electionID(term int64) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], 0x7fffffff)
	binary.BigEndian.PutUint64(id[4:], uint64(term))
	return id
}

func replSetStatus(c *conn, v ReplSetView) bson.D {
	now := c.s.now()
	myState := stateSecondary
	if v.IsPrimary {
		myState = statePrimary
	}
	voting := int32(len(v.Members))
	majority := voting/2 + 1
	mine := replOpTime(v.Applied, v.Term, now)
	members := bson.A{}
	for i, m := range v.Members {
		state, str := stateSecondary, "SECONDARY"
		switch {
		case m.Primary && m.Healthy:
			state, str = statePrimary, "PRIMARY"
		case !m.Healthy:
			state, str = stateDown, "(not reachable/healthy)"
		}
		health := 0.0
		if m.Healthy {
			health = 1
		}
		name := m.Host
		if name == "" {
			name = m.RaftAddr
		}
		d := bson.D{
			{Key: "_id", Value: int32(i)},
			{Key: "name", Value: name},
			{Key: "health", Value: health},
			{Key: "state", Value: int32(state)},
			{Key: "stateStr", Value: str},
			{Key: "uptime", Value: int64(now.Sub(c.s.started).Seconds())},
			{Key: "optime", Value: replOpTime(m.Applied, v.Term, now)},
			{Key: "optimeDate", Value: bson.NewDateTimeFromTime(now)},
		}
		if !m.Self {
			d = append(d, bson.E{Key: "lastHeartbeat", Value: bson.NewDateTimeFromTime(m.LastHeartbeat)})
		}
		d = append(d,
			bson.E{Key: "syncSourceHost", Value: ""},
			bson.E{Key: "configVersion", Value: int32(v.Version)},
			bson.E{Key: "configTerm", Value: v.Term},
		)
		if m.Self {
			d = append(d, bson.E{Key: "self", Value: true})
		}
		if m.Self && v.IsPrimary {
			d = append(d,
				bson.E{Key: "electionTime", Value: bson.Timestamp{T: uint32(v.ElectedAt.Unix()), I: 1}},
				bson.E{Key: "electionDate", Value: bson.NewDateTimeFromTime(v.ElectedAt)},
			)
		}
		members = append(members, d)
	}
	return bson.D{
		{Key: "set", Value: v.SetName},
		{Key: "date", Value: bson.NewDateTimeFromTime(now)},
		{Key: "myState", Value: int32(myState)},
		{Key: "term", Value: v.Term},
		{Key: "syncSourceHost", Value: ""},
		{Key: "syncSourceId", Value: int32(-1)},
		{Key: "heartbeatIntervalMillis", Value: int64(500)},
		{Key: "majorityVoteCount", Value: majority},
		{Key: "writeMajorityCount", Value: majority},
		{Key: "votingMembersCount", Value: voting},
		{Key: "writableVotingMembersCount", Value: voting},
		{Key: "optimes", Value: bson.D{
			{Key: "lastCommittedOpTime", Value: mine},
			{Key: "appliedOpTime", Value: mine},
			{Key: "durableOpTime", Value: mine},
		}},
		{Key: "members", Value: members},
	}
}

// replSetConfig is the set's configuration document. Each member's
// tags.raftAddr names it in the raft configuration; replSetReconfig reads
// it back.
func replSetConfig(v ReplSetView) bson.D {
	members := bson.A{}
	for i, m := range v.Members {
		host := m.Host
		if host == "" {
			host = m.RaftAddr
		}
		members = append(members, bson.D{
			{Key: "_id", Value: int32(i)},
			{Key: "host", Value: host},
			{Key: "arbiterOnly", Value: false},
			{Key: "buildIndexes", Value: true},
			{Key: "hidden", Value: false},
			{Key: "priority", Value: 1.0},
			{Key: "tags", Value: bson.D{{Key: "raftAddr", Value: m.RaftAddr}}},
			{Key: "secondaryDelaySecs", Value: int64(0)},
			{Key: "votes", Value: int32(1)},
		})
	}
	return bson.D{
		{Key: "_id", Value: v.SetName},
		{Key: "version", Value: int32(v.Version)},
		{Key: "term", Value: int32(v.Term)},
		{Key: "members", Value: members},
		{Key: "protocolVersion", Value: int64(1)},
		{Key: "writeConcernMajorityJournalDefault", Value: true},
		{Key: "settings", Value: bson.D{
			{Key: "chainingAllowed", Value: false},
			{Key: "heartbeatIntervalMillis", Value: int32(500)},
			{Key: "electionTimeoutMillis", Value: int32(1000)},
		}},
	}
}

// replSetReconfig applies a new configuration's membership: members are
// matched by tags.raftAddr (a new member must carry it: its --raft-addr);
// the ones missing are removed, the new ones added, one change at a time.
func replSetReconfig(rs ReplicaSet, v ReplSetView, req *request) (bson.D, error) {
	if !v.IsPrimary {
		return nil, errorf(mongoerr.NotWritablePrimary, "replSetReconfig should only be run on a writable PRIMARY. Current state SECONDARY;")
	}
	cfgVal, err := req.cmd.LookupErr("replSetReconfig")
	if err != nil {
		return nil, errorf(mongoerr.TypeMismatch, "Expected replSetReconfig argument to be a Object")
	}
	cfg, ok := cfgVal.DocumentOK()
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "Expected replSetReconfig argument to be a Object")
	}
	if id, ok := cfg.Lookup("_id").StringValueOK(); !ok || id != v.SetName {
		return nil, errorf(mongoerr.InvalidReplicaSetConfig, "New and old configurations differ in replica set ID; old was %s, and new is %s", v.SetName, id)
	}
	arr, ok := cfg.Lookup("members").ArrayOK()
	if !ok {
		return nil, errorf(mongoerr.InvalidReplicaSetConfig, "Expected type of field members in replica set config to be array")
	}
	want := map[string]bool{}
	vals, _ := arr.Values()
	for _, mv := range vals {
		m, ok := mv.DocumentOK()
		if !ok {
			return nil, errorf(mongoerr.InvalidReplicaSetConfig, "Expected type of member in replica set config to be object")
		}
		raftAddr, ok := m.Lookup("tags", "raftAddr").StringValueOK()
		if !ok || raftAddr == "" {
			host, _ := m.Lookup("host").StringValueOK()
			if existing := memberByHost(v, host); existing != "" {
				raftAddr = existing
			} else {
				return nil, errorf(mongoerr.InvalidReplicaSetConfig, "member %s needs tags.raftAddr, its --raft-addr, to join the set", host)
			}
		}
		want[raftAddr] = true
	}
	if len(want) == 0 {
		return nil, errorf(mongoerr.InvalidReplicaSetConfig, "Replica set configuration must contain at least one voting member")
	}
	have := map[string]bool{}
	for _, m := range v.Members {
		have[m.RaftAddr] = true
	}
	var errs []error
	for addr := range want {
		if !have[addr] {
			errs = append(errs, rs.AddMember(addr))
		}
	}
	for addr := range have {
		if !want[addr] {
			errs = append(errs, rs.RemoveMember(addr))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errorf(mongoerr.NewReplicaSetConfigurationIncompatible, "%v", err)
	}
	return bson.D{}, nil
}

func memberByHost(v ReplSetView, host string) string {
	for _, m := range v.Members {
		if host != "" && (m.Host == host || m.RaftAddr == host) {
			return m.RaftAddr
		}
	}
	return ""
}

// writeCommands are the commands a secondary refuses with
// NotWritablePrimary before running them. Writes reached another way
// (aggregate's $out and $merge) fail when they commit, with the same error.
var writeCommands = map[string]bool{
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"create": true, "createIndexes": true, "drop": true, "dropDatabase": true, "dropIndexes": true,
	"renameCollection": true, "collMod": true,
	"createUser": true, "updateUser": true, "dropUser": true, "dropAllUsersFromDatabase": true,
	"grantRolesToUser": true, "revokeRolesFromUser": true,
	"createRole": true, "updateRole": true, "dropRole": true, "dropAllRolesFromDatabase": true,
	"grantRolesToRole": true, "revokeRolesFromRole": true,
	"grantPrivilegesToRole": true, "revokePrivilegesFromRole": true,
}

// errNotPrimary is MongoDB's refusal of a write on a secondary.
func errNotPrimary() *mongoerr.Error {
	return errorf(mongoerr.NotWritablePrimary, "not primary")
}

// checkPrimary refuses a write command on a secondary.
func (c *conn) checkPrimary(req *request) error {
	rs := c.s.opts.ReplicaSet
	if rs == nil || !writeCommands[req.name] {
		return nil
	}
	if !rs.Writable() {
		return errNotPrimary()
	}
	return nil
}
