package integration_test

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that mongoose's Model.watch() receives inserts, updates, user
// deletes and TTL deletions marked with expiredBy, and that a stream that
// selects expirations receives only those (testdata/mongonode/
// changestream_mongoose_test.js).
func TestChangeStreamMongooseWatch(t *testing.T) {
	s := harness.Start(t, "--manual-clock", "--change-streams", "--set-parameter", "ttlMonitorSleepSecs=1")
	runMongoNodeScript(t, s, "changestream_mongoose_test.js", 2*time.Minute)
}
