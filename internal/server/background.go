package server

import (
	"fmt"
	"log/slog"

	"github.com/mayfly/mayfly/internal/lowprio"
)

// BackgroundPriority is the operating-system CPU priority of the
// background work: the expiry sweeper's batch preparation and the storage
// engine's compactions.
type BackgroundPriority string

const (
	// BackgroundLow runs the sweeper's batch preparation and compactions
	// on threads at nice 19, so requests take the CPUs from them at once
	// (internal/lowprio).
	BackgroundLow BackgroundPriority = "low"
	// BackgroundNormal runs them at the priority of everything else. The
	// default: at low priority the sweeper can fall behind a foreground
	// that keeps every CPU busy (README.md, "Background work").
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

// startIdleWorker raises GOMAXPROCS by the lowered threads (lowprio.Reserve)
// and starts the sweeper's low-priority thread. Where the system has no
// such thing it logs why and returns nil: the sweeper then prepares its
// batches at normal priority.
func startIdleWorker(log *slog.Logger) *lowprio.Worker {
	procs := lowprio.Reserve()
	w, err := lowprio.StartWorker()
	if err != nil {
		log.Warn("background work keeps normal priority", "err", err)
		return nil
	}
	log.Debug("background work at low priority", "gomaxprocs", procs)
	return w
}
