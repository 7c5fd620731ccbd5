package docdb

import (
	"errors"
	"log/slog"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// Visibility says whether expired documents are hidden before they are
// deleted.
type Visibility int

const (
	// VisibilityStrict hides a document from every read path as soon as a TTL
	// index of its collection says it has expired (mayfly's promise 1). It is
	// the default.
	VisibilityStrict Visibility = iota
	// VisibilityLazy returns expired documents until the reaper deletes them,
	// as MongoDB does.
	VisibilityLazy
)

// ExpiryRegistry is the part of the expiry engine the document database
// uses: it registers one source per TTL index and wakes the sweeper when a
// write makes something due earlier than the sweeper planned.
type ExpiryRegistry interface {
	// Register adds a source; its name is unique among registered sources.
	Register(src expiry.Source) error
	// Unregister removes the source with that name, if registered.
	Unregister(name string) bool
	// Wake tells the sweeper that an item may be due at due.
	Wake(due time.Time)
}

// Options configure an Engine.
type Options struct {
	// Store holds the data. Required.
	Store *storage.Store
	// Now returns the current time; nil means time.Now. Expiry and strict
	// visibility use it.
	Now func() time.Time
	// Visibility is the expiry visibility mode; the zero value is
	// VisibilityStrict.
	Visibility Visibility
	// Expiry, when set, receives one source per TTL index (created, dropped,
	// renamed and changed by collMod as the catalog changes). Nil means no
	// TTL deletion, only strict visibility.
	Expiry ExpiryRegistry
	// Logger receives validation warnings (validationAction "warn") and
	// background errors; nil means slog.Default().
	Logger *slog.Logger
	// MaxDocumentSize is the largest document accepted, in bytes; zero means
	// 16 MiB (MongoDB's BSONObjectMaxUserSize).
	MaxDocumentSize int
	// TempDir holds the files of sorts that spill past their memory limit
	// (querymem.go); it is emptied at Open. Empty means a directory of the
	// process under os.TempDir().
	TempDir string
	// ChangeLog turns the change log (internal/docdb/events) on, as Events
	// configures it; off, nothing is logged and change streams fail.
	ChangeLog bool
	Events    events.Options
}

// DefaultMaxDocumentSize is MongoDB's limit on a stored document.
const DefaultMaxDocumentSize = 16 * 1024 * 1024

// EnsureDefaults fills in the zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxDocumentSize == 0 {
		o.MaxDocumentSize = DefaultMaxDocumentSize
	}
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if o.Store == nil {
		return errors.New("docdb: no store given")
	}
	if o.Visibility != VisibilityStrict && o.Visibility != VisibilityLazy {
		return errors.New("docdb: unknown visibility mode")
	}
	if o.MaxDocumentSize < 0 {
		return errors.New("docdb: negative maximum document size")
	}
	return nil
}
