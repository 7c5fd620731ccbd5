package expiry_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

func TestParametersList(t *testing.T) {
	list := expiry.Parameters()
	var names []string
	def := expiry.DefaultParams()
	for _, p := range list {
		names = append(names, p.Name)
		got, err := def.Get(p.Name)
		if err != nil || got != p.Default {
			t.Errorf("%s: DefaultParams().Get = %#v, %v; ParamInfo.Default = %#v", p.Name, got, err, p.Default)
		}
	}
	want := []string{
		"ttlDeleteBatchSize", "ttlIndexDeleteTargetDocs", "ttlIndexDeleteTargetTimeMS", "ttlMaxDeletesPerSecond",
		"ttlMonitorBatchDeletes", "ttlMonitorEnabled", "ttlMonitorSleepSecs", "ttlMonitorSubPassTargetSecs",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("Parameters() = %v, want %v", names, want)
	}
}

func TestGetParameterTypes(t *testing.T) {
	p := expiry.DefaultParams()
	tests := map[string]any{
		expiry.ParamMonitorEnabled:      true,
		expiry.ParamSleepSecs:           int32(60),
		expiry.ParamBatchDeletes:        true,
		expiry.ParamDeleteTargetDocs:    int64(50000),
		expiry.ParamDeleteTargetTimeMS:  int32(1000),
		expiry.ParamSubPassTargetSecs:   int32(60),
		expiry.ParamMaxDeletesPerSecond: int64(0),
		expiry.ParamDeleteBatchSize:     int32(1000),
	}
	for name, want := range tests {
		if got, err := p.Get(name); err != nil || got != want {
			t.Errorf("Get(%s) = %#v, %v; want %#v", name, got, err, want)
		}
	}
	_, err := p.Get("ttlMonitorSleepSeconds")
	if !errors.Is(err, expiry.ErrUnknownParameter) {
		t.Errorf("Get(unknown) = %v, want ErrUnknownParameter", err)
	}
}

func TestSetParameter(t *testing.T) {
	tests := []struct {
		name    string
		param   string
		value   any
		want    any // value read back on success
		wantErr error
		wantMsg string
	}{
		{"int32", expiry.ParamSleepSecs, int32(1), int32(1), nil, ""},
		{"int64 into int", expiry.ParamSleepSecs, int64(5), int32(5), nil, ""},
		{"double truncated", expiry.ParamSleepSecs, 2.9, int32(2), nil, ""},
		{"negative double truncated toward zero", expiry.ParamDeleteTargetDocs, -0.5, int64(0), nil, ""},
		{"zero sleep", expiry.ParamSleepSecs, int32(0), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0"},
		{"fraction below one", expiry.ParamSleepSecs, 0.5, nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0"},
		{"negative target docs", expiry.ParamDeleteTargetDocs, int64(-1), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlIndexDeleteTargetDocs: -1 is not greater than or equal to 0"},
		{"negative target time", expiry.ParamDeleteTargetTimeMS, -3, nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlIndexDeleteTargetTimeMS: -3 is not greater than or equal to 0"},
		{"zero sub-pass target", expiry.ParamSubPassTargetSecs, int32(0), int32(0), nil, ""},
		{"negative sub-pass target", expiry.ParamSubPassTargetSecs, int32(-1), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlMonitorSubPassTargetSecs: -1 is not greater than or equal to 0"},
		{"rate", expiry.ParamMaxDeletesPerSecond, int64(5000), int64(5000), nil, ""},
		{"negative rate", expiry.ParamMaxDeletesPerSecond, int64(-5), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlMaxDeletesPerSecond: -5 is not greater than or equal to 0"},
		{"batch size zero", expiry.ParamDeleteBatchSize, int32(0), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlDeleteBatchSize: 0 is not greater than 0"},
		{"batch size too big", expiry.ParamDeleteBatchSize, int32(1_000_001), nil, expiry.ErrBadValue,
			"Invalid value for parameter ttlDeleteBatchSize: 1000001 is not less than or equal to 1000000"},
		{"string into int", expiry.ParamSleepSecs, "10", nil, expiry.ErrBadValue, "Can't coerce value"},
		{"bool into int", expiry.ParamSleepSecs, true, nil, expiry.ErrBadValue, "Can't coerce value"},
		{"null into int", expiry.ParamSleepSecs, nil, nil, expiry.ErrBadValue, "Can't coerce value"},
		{"NaN into int", expiry.ParamSleepSecs, math.NaN(), nil, expiry.ErrBadValue, "Can't coerce value"},
		{"long out of int range", expiry.ParamSleepSecs, int64(1) << 40, nil, expiry.ErrBadValue, "Can't coerce value"},
		{"huge double into long", expiry.ParamDeleteTargetDocs, 1e19, nil, expiry.ErrBadValue, "Can't coerce value"},
		{"bool false", expiry.ParamMonitorEnabled, false, false, nil, ""},
		{"bool from zero", expiry.ParamMonitorEnabled, int32(0), false, nil, ""},
		{"bool from number", expiry.ParamMonitorEnabled, 2.5, true, nil, ""},
		{"bool from null", expiry.ParamBatchDeletes, nil, false, nil, ""},
		// BSONElement::trueValue: any string is true, even "false".
		{"bool from string", expiry.ParamBatchDeletes, "false", true, nil, ""},
		{"unknown", "ttlMonitorSleepSeconds", 1, nil, expiry.ErrUnknownParameter, "unknown parameter ttlMonitorSleepSeconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := expiry.New(expiry.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			before := e.Params()
			old, err := e.SetParameter(tc.param, tc.value)
			if tc.wantErr != nil {
				var pe *expiry.ParamError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &pe) || pe.Message != tc.wantMsg || pe.Name != tc.param {
					t.Fatalf("SetParameter(%s, %#v) = %v (%#v), want %v with message %q", tc.param, tc.value, err, pe, tc.wantErr, tc.wantMsg)
				}
				if e.Params() != before {
					t.Errorf("params changed by a failed set")
				}
				return
			}
			if err != nil {
				t.Fatalf("SetParameter(%s, %#v) = %v", tc.param, tc.value, err)
			}
			if was, _ := before.Get(tc.param); old != was {
				t.Errorf("was = %#v, want %#v", old, was)
			}
			if got, _ := e.GetParameter(tc.param); got != tc.want {
				t.Errorf("after set %#v read back %#v, want %#v", tc.value, got, tc.want)
			}
		})
	}
}

func TestSetParams(t *testing.T) {
	e, err := expiry.New(expiry.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := e.Params()
	p.SleepSecs = -1
	var pe *expiry.ParamError
	if err := e.SetParams(p); !errors.As(err, &pe) || pe.Name != expiry.ParamSleepSecs {
		t.Fatalf("SetParams(invalid) = %v", err)
	}
	if e.Params() != expiry.DefaultParams() {
		t.Fatal("invalid SetParams changed the parameters")
	}
	p.SleepSecs = 1
	p.MaxDeletesPerSecond = 10
	if err := e.SetParams(p); err != nil || e.Params() != p {
		t.Fatalf("SetParams = %v, params %+v", err, e.Params())
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*expiry.Config)
		ok   bool
	}{
		{"default", func(*expiry.Config) {}, true},
		{"zero config gets defaults", func(c *expiry.Config) { *c = expiry.Config{} }, true},
		{"invalid param", func(c *expiry.Config) { c.Params.DeleteTargetDocs = -1 }, false},
		{"negative min period", func(c *expiry.Config) { c.MinPeriod = -1 }, false},
		{"negative error retry", func(c *expiry.Config) { c.ErrorRetry = -time.Second }, false},
		{"factor below one", func(c *expiry.Config) { c.Backoff.Factor = 0.5 }, false},
		{"max level too high", func(c *expiry.Config) { c.Backoff.MaxLevel = 21 }, false},
		{"negative window", func(c *expiry.Config) { c.Backoff.Window = -time.Second }, false},
		{"disabled back-off skips its checks", func(c *expiry.Config) { c.Backoff = expiry.BackoffConfig{Disabled: true, Factor: 0.1} }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := expiry.DefaultConfig()
			tc.edit(&cfg)
			_, err := expiry.New(cfg)
			if tc.ok != (err == nil) {
				t.Fatalf("New = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, expiry.ErrInvalidConfig) {
				t.Errorf("error %v does not wrap ErrInvalidConfig", err)
			}
		})
	}
	if err := (expiry.Config{}).Validate(); err == nil {
		t.Error("Validate of a zero Config (nil Now) = nil")
	}
}
