package docdb

// ExecError is an error raised while a command's plan runs (reading or
// writing documents), not while the command is parsed or planned. MongoDB
// words such an error with the command's context ("PlanExecutor error
// during aggregation :: caused by :: ..."), which the wire edge adds. The
// errors a Cursor's Next returns are all of this kind, so they are not
// wrapped; ExecError marks those a method returns before any cursor
// exists, such as the writes of $out and $merge.
type ExecError struct{ Err error }

func (e *ExecError) Error() string { return e.Err.Error() }

// Unwrap returns the error the plan raised.
func (e *ExecError) Unwrap() error { return e.Err }
