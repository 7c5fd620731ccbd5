// Package invariants turns expensive consistency checks on and off at build
// time, as Pebble does. Build or test with `-tags invariants` (the race
// detector turns them on too) to enable them; in production builds Enabled
// is a false constant and the checks are compiled away.
package invariants
