package docdb

// RefreshChangeLog brings the change log's in-memory state up to the
// records in storage, after batches written by another member of a
// replica set were applied: change streams opened on this member see the
// replicated records, and a member about to write records itself (full)
// continues their sequence after the last one replicated. A no-op
// without the change log.
func (e *Engine) RefreshChangeLog(full bool) error {
	if e.events == nil {
		return nil
	}
	return e.events.Refresh(full)
}
