// Package lint holds repository rules checked as Go tests, as Pebble's
// internal/lint does: the import direction of DESIGN.md's architecture and
// which packages may import the heavy third-party libraries.
package lint
