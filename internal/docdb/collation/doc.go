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
// Strength 1 to 5, numericOrdering and alternate: "shifted" follow ICU;
// caseFirst, caseLevel and backwards are accepted and checked but compare
// as the locale's default (the collate package does not reorder cases or
// reverse accents).
package collation
