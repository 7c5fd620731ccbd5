// Package policy is mayfly's TTL policies: a policy names one timestamp
// field (and an offset) for a collection group, every collection of that
// name in every database, and documents expire when the field's earliest
// Date plus the offset has passed. The Manager keeps the policies, the
// long-running operations that change them (an enable builds a hidden
// index of the field in every collection of the group), one expiry source
// per enabled policy, and the previews of TTL changes that dry runs
// report (DryRun, Preview).
//
// The engine gives the Manager its store, catalog, clock, expiry registry
// and writer (Config), registers it as a change.Hook so hidden indexes
// follow every document write in the write's own batch, and tells it as
// collections are created, dropped and renamed.
//
// Rules:
//
//   - Lock order: the manager's update lock, then collection write locks,
//     then the catalog lock, then the manager's mu, a leaf lock. Writers
//     and readers never lock: they load the published rules and hidden
//     indexes atomically (RuleFor, IndexOf).
//   - A hidden index changes only under its collection's write lock, so a
//     writer sees one index for its whole life.
//   - Policy and operation records are written in one storage batch with
//     what they describe and applied in memory only after it commits, so
//     memory always equals what is stored; an operation resumes after a
//     restart where its last committed chunk stopped.
//   - The offset belongs to the policy, not to the entries: changing it is
//     metadata only, and every document is checked again before deletion.
package policy
