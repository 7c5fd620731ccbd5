package mongo

import "runtime/debug"

// The MongoDB release mayfly answers as: drivers check maxWireVersion and
// mongosh prints the version. 7.0 is the behaviour mayfly reproduces.
const (
	mongoVersion    = "7.0.0"
	minWireVersion  = 0
	maxWireVersion  = 21 // MongoDB 7.0
	logicalSessions = 30 // logicalSessionTimeoutMinutes
)

var mongoVersionArray = []int32{7, 0, 0, 0}

// mayflyVersion returns the module version and VCS revision of the running
// binary, as far as the build recorded them.
func mayflyVersion() (version, revision string) {
	version, revision = "devel", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version, revision
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		version = v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			revision = s.Value
		}
	}
	return version, revision
}
