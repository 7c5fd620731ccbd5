package mongo

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// msgHostInfo answers hostInfo with what the Go runtime and, on Linux,
// /proc tell about the machine.
func msgHostInfo(_ context.Context, c *conn, _ *request) (bson.D, error) {
	system := bson.D{
		{Key: "currentTime", Value: bson.NewDateTimeFromTime(c.s.now())},
		{Key: "hostname", Value: c.s.host},
		{Key: "cpuAddrSize", Value: int32(32 << (^uint(0) >> 63))},
	}
	if mb, ok := memTotalMB(); ok {
		system = append(system,
			bson.E{Key: "memSizeMB", Value: mb},
			bson.E{Key: "memLimitMB", Value: mb})
	}
	system = append(system,
		bson.E{Key: "numCores", Value: int32(runtime.NumCPU())},
		bson.E{Key: "cpuArch", Value: runtime.GOARCH},
		bson.E{Key: "numaEnabled", Value: false},
	)
	osType := runtime.GOOS
	if osType != "" {
		osType = strings.ToUpper(osType[:1]) + osType[1:]
	}
	return bson.D{
		{Key: "system", Value: system},
		{Key: "os", Value: bson.D{{Key: "type", Value: osType}}},
		{Key: "extra", Value: bson.D{{Key: "goVersion", Value: runtime.Version()}}},
	}, nil
}

// memTotalMB reads the machine's memory from /proc/meminfo.
func memTotalMB() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb / 1024, true
		}
	}
	return 0, false
}
