package storage

import "github.com/cockroachdb/pebble/v2"

// noRecycleCleaner deletes obsolete files, as Pebble's default cleaner
// does, and turns off Pebble's recycling of write-ahead logs. A recycled
// log is reused in place for a new log (vfs.FS.ReuseForWrite) and keeps its
// old bytes beyond the new contents, and a log waiting to be recycled stays
// on disk whole: either way deleted values would outlive the purge bound.
//
// Pebble recycles logs only when its cleaner does not need the contents of
// the files it cleans, which it learns from an unexported marker method of
// pebble.ArchiveCleaner. Embedding ArchiveCleaner one level deeper than
// DeleteCleaner promotes that marker while Clean still resolves to
// DeleteCleaner's, which removes the file.
type noRecycleCleaner struct {
	pebble.DeleteCleaner
	wantsContents
}

// wantsContents carries ArchiveCleaner's marker method.
type wantsContents struct{ pebble.ArchiveCleaner }

var _ pebble.Cleaner = noRecycleCleaner{}

// String names the cleaner in Pebble's OPTIONS file.
func (noRecycleCleaner) String() string { return "delete-no-wal-recycling" }
