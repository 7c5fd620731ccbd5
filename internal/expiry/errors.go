package expiry

import "errors"

// Sentinel errors of the engine. Callers compare with errors.Is.
var (
	// ErrClosed is returned by Run and Close once the engine is closed.
	ErrClosed = errors.New("expiry: engine closed")
	// ErrRunning is returned by Run while another Run is active.
	ErrRunning = errors.New("expiry: sweeper already running")
	// ErrDuplicateSource is returned by Register for a name already registered.
	ErrDuplicateSource = errors.New("expiry: duplicate source name")
	// ErrInvalidSource is returned by Register for a nil source or an empty name.
	ErrInvalidSource = errors.New("expiry: invalid source")
	// ErrInvalidConfig is wrapped by Config.Validate.
	ErrInvalidConfig = errors.New("expiry: invalid config")
	// ErrUnknownParameter is wrapped by a *ParamError for a name that is not
	// one of the engine's parameters.
	ErrUnknownParameter = errors.New("expiry: unknown parameter")
	// ErrBadValue is wrapped by a *ParamError for a value that cannot be
	// converted to the parameter's type or fails its validator (MongoDB's
	// BadValue, code 2).
	ErrBadValue = errors.New("expiry: bad parameter value")
)
