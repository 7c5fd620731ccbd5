package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mayfly/mayfly/internal/expiry"
)

// setParameters applies "name=value" settings to the engine at startup,
// except the document database's query parameters (applyQueryParameters).
// Values are parsed as booleans (true/false) or integers; anything else is
// passed as a string and refused by the parameter's own validation.
func setParameters(e *expiry.Engine, params []string) error {
	for _, p := range params {
		name, v, err := parseParameter(p)
		if err != nil {
			return err
		}
		if isQueryParameter(name) || name == testCommandsParameter {
			continue
		}
		if _, err := e.SetParameter(name, v); err != nil {
			return fmt.Errorf("--set-parameter %s: %w", name, err)
		}
	}
	return nil
}

// parseParameter splits a --set-parameter value into its name and value.
func parseParameter(p string) (string, any, error) {
	name, raw, ok := strings.Cut(p, "=")
	if !ok || name == "" {
		return "", nil, fmt.Errorf("--set-parameter %q: want name=value", p)
	}
	var v any = raw
	if b, err := strconv.ParseBool(raw); err == nil && (raw == "true" || raw == "false") {
		v = b
	} else if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		v = n
	}
	return name, v, nil
}

// testCommandsParameter is mongod's enableTestCommands: set at startup
// (1 or true), it serves the test-only commands such as configureFailPoint.
const testCommandsParameter = "enableTestCommands"

// testCommandsEnabled reports whether the startup parameters turn
// enableTestCommands on.
func testCommandsEnabled(params []string) (bool, error) {
	on := false
	for _, p := range params {
		name, v, err := parseParameter(p)
		if err != nil {
			return false, err
		}
		if name != testCommandsParameter {
			continue
		}
		switch v {
		case true, int64(1):
			on = true
		case false, int64(0):
			on = false
		default:
			return false, fmt.Errorf("--set-parameter %s: want 0, 1, true or false, not %v", name, v)
		}
	}
	return on, nil
}
