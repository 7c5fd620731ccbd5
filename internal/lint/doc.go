// Package lint holds repository rules checked as Go tests, as Pebble's
// internal/lint does: the import direction of the architecture (each
// package imports only the layers below it, and neither front end the
// other) and which packages may import the heavy third-party libraries.
package lint
