//go:build !linux

package lowprio

import "time"

func setNice(int) error { return ErrUnsupported }

func threadCPU() time.Duration { return 0 }

func readCPUTimes() (cpuTimes, error) { return cpuTimes{}, ErrUnsupported }
