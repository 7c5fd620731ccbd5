// Package timeseries holds the rules of MongoDB's time-series collections
// that do not depend on storage: the collection options and their
// validation, how measurements are grouped into buckets, the bucket
// document, unpacking a bucket into the measurements it holds, and the
// bucket range a query's time predicates allow.
//
// A time-series collection db.c stores its measurements in the clustered
// collection db.system.buckets.c, one document per bucket; db.c itself is
// the view of the measurements the buckets hold.
//
// Bucketing rules:
//
//   - All measurements of a bucket have the same metaField value (compared
//     as BSON bytes) and times in [start, start + bucketMaxSpanSeconds),
//     where start is the measurement's time rounded down to a multiple of
//     bucketMaxSpanSeconds. start is also a multiple of
//     bucketRoundingSeconds, since the span is a multiple of the rounding
//     for every granularity, and it is the bucket's control.min.<time>.
//   - A bucket holds at most MaxCount measurements and MaxBytes of them;
//     past either a new bucket of the same start and meta is opened.
//   - A bucket's _id is an ObjectId whose timestamp is start in seconds
//     (as a 32-bit value, so dates before 1970 and after 2038-01-19, the
//     extended range, wrap as they do in MongoDB) and whose other 8 bytes
//     are a hash of the meta value plus a probe number: the bucket of a
//     measurement is found by point reads, and buckets sort by start.
//
// Because buckets sort by start and a bucket expires when start is older
// than now - expireAfterSeconds - bucketMaxSpanSeconds, the expired
// buckets are one key span of the bucket collection.
//
// The bucket document is MongoDB's version 1 layout:
//
//	{_id, control: {version: 1, min: {<time>: start}, max: {<time>: latest}},
//	 meta: <meta>, data: {<field>: {"0": v0, "1": v1, ...}, ...}}
//
// where data holds one column per field, keyed by the measurement's
// position in the bucket, a missing field leaving a gap.
package timeseries
