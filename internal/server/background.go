package server

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/mayfly/mayfly/internal/lowprio"
)

// BackgroundPriority is the operating-system CPU priority of the
// background work: the expiry sweeper's batch preparation and the storage
// engine's compactions.
type BackgroundPriority string

const (
	// BackgroundLow runs the sweeper's batch preparation and compactions
	// on threads at nice 19, so requests take the CPUs from them at once
	// (internal/lowprio). The default.
	BackgroundLow BackgroundPriority = "low"
	// BackgroundNormal runs them at the priority of everything else.
	BackgroundNormal BackgroundPriority = "normal"
)

// ParseBackgroundPriority parses the --background-priority flag.
func ParseBackgroundPriority(s string) (BackgroundPriority, error) {
	switch p := BackgroundPriority(s); p {
	case BackgroundLow, BackgroundNormal:
		return p, nil
	}
	return "", fmt.Errorf("unknown background priority %q (want low or normal)", s)
}

// idleThread is the sweeper's expiry.Idle: a lowered thread and a meter of
// the CPU time the foreground leaves.
type idleThread struct {
	*lowprio.Worker
	*lowprio.SpareMeter
}

// spareInterval is the least span over which the spare CPU is measured.
const spareInterval = 100 * time.Millisecond

// startIdleThread raises GOMAXPROCS by the lowered threads (lowprio.Reserve)
// and starts the sweeper's low-priority thread. Where the system has no
// such thing it logs why and returns nil: the sweeper then prepares its
// batches at normal priority.
func startIdleThread(log *slog.Logger) *idleThread {
	meter, err := lowprio.NewSpareMeter(spareInterval)
	if err != nil {
		log.Warn("background work keeps normal priority", "err", err)
		return nil
	}
	procs := lowprio.Reserve()
	w, err := lowprio.StartWorker()
	if err != nil {
		log.Warn("background work keeps normal priority", "err", err)
		return nil
	}
	log.Debug("background work at low priority", "gomaxprocs", procs)
	return &idleThread{Worker: w, SpareMeter: meter}
}
