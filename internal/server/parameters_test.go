package server

import "testing"

func TestTestCommandsEnabled(t *testing.T) {
	for _, tc := range []struct {
		params []string
		want   bool
		err    bool
	}{
		{nil, false, false},
		{[]string{"ttlMonitorSleepSecs=1"}, false, false},
		{[]string{"enableTestCommands=1"}, true, false},
		{[]string{"enableTestCommands=true"}, true, false},
		{[]string{"enableTestCommands=1", "enableTestCommands=0"}, false, false},
		{[]string{"enableTestCommands=yes"}, false, true},
	} {
		got, err := testCommandsEnabled(tc.params)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("testCommandsEnabled(%q) = %v, %v; want %v, error %v", tc.params, got, err, tc.want, tc.err)
		}
	}
}
