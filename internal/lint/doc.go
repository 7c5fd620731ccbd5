// Package lint holds repository rules checked as Go tests, as Pebble's
// internal/lint does: the import direction of the architecture (each
// package imports only the layers below it, and neither front end the
// other; docs/ARCHITECTURE.md), which packages may import the heavy
// third-party libraries, and that the document model and the wire edge
// name MongoDB error codes (mongoerr's generated constants) instead of
// writing numbers.
package lint
