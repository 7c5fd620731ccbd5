// Package collation compares strings with a MongoDB collation: the locale's
// rules for letters, cases, accents and digits, as ICU applies them in
// MongoDB, through golang.org/x/text/collate.
//
// A collation spec ({locale, strength, caseLevel, caseFirst,
// numericOrdering, alternate, maxVariable, backwards, normalization}) is
// checked with MongoDB's errors; {locale: "simple"} (or no collation) is
// the binary comparison every other part of the database uses, and Parse
// returns nil for it.
//
// A Collator works by collation keys, as MongoDB's indexes do: Key maps a
// string to bytes whose bytewise order is the collation's order, so two
// strings the collation finds equal (ping and PING at strength 2) have the
// same key. Value maps every string inside a BSON value (documents and
// arrays included) to its key, so that a filter whose string constants and
// a document whose strings are both mapped compare as the collation says
// with the ordinary comparison of BSON values.
//
// Strength 1 to 5, numericOrdering, alternate: "shifted" and backwards
// follow ICU through the collate package's BCP 47 options (ks, ka, kb).
// The collate package has no caseFirst (kf) and its caseLevel (kc) keeps
// every tertiary weight, so both are done here: caseFirst "upper" takes the
// key of the case-swapped string (the locale's tertiary order puts
// lowercase first, as "lower" and "off" do), and caseLevel at strength 1
// or 2 appends the case of each letter after the secondary weights. Full
// reports the spec with every field, as listIndexes and listCollections
// show it; maxVariable and normalization are checked and reported.
package collation
