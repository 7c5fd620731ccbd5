// Package stored is a document as the database stores it: its raw BSON
// (the bytes a client sent, or an update produced), its decoded bson.D and
// its _id, raw and encoded as the key of the document record (Doc).
//
// New decodes a stored document exactly as bson.Unmarshal into a bson.D
// does, the common BSON types without the driver's reflection; NewFast is
// the same for the reaper, which decodes every document it deletes. A Doc
// is never changed once built: a write builds a new one.
package stored
