package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// The replica set commands (rs.status(), rs.conf(), rs.initiate() and the
// rest of the rs helpers) answer as a MongoDB standalone does: mayfly is
// never a replica set member, so each fails with NoReplicationEnabled.
// They run only against the admin database, as MongoDB's do.

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

// msgReplSet answers a replica set command on a standalone server.
func msgReplSet(_ context.Context, _ *conn, req *request) (bson.D, error) {
	if req.name == "replSetInitiate" {
		return nil, errorf(mongoerr.NoReplicationEnabled, "This node was not started with replication enabled.")
	}
	return nil, errorf(mongoerr.NoReplicationEnabled, "not running with --replSet")
}
