package bench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// docTTL is how far in the future doc's documents expire: the TTL index is
// there, but nothing falls due during the workload.
const docTTL = time.Hour

// docOps are doc's phases, in order: inserts first so the reads and
// updates have documents to hit. insert_many inserts docBatch documents
// per request, and its throughput counts documents. find_and_modify is
// update's $inc by findOneAndUpdate, returning the document after it.
var docOps = []string{"insert", "insert_many", "find_id", "find_indexed", "update", "find_and_modify"}

// docBatch is how many documents one insert_many request carries.
const docBatch = 100

func docEmail(i int64) string { return "user" + strconv.FormatInt(i, 10) + "@example.com" }

// ensureTTLIndex creates the TTL index {field: 1} with expireAfterSeconds
// 0 on coll. A server that refuses it (FerretDB 1.x has no TTL indexes)
// gets a note and a plain index instead, so its other figures still count.
func ensureTTLIndex(ctx context.Context, coll *mongo.Collection, field string, r *Result) error {
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: field, Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(0),
	})
	if err == nil {
		return nil
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return fmt.Errorf("create TTL index: %w", err)
	}
	r.notef("server refused the TTL index (%v); the collection has a plain index on %s instead", err, field)
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: field, Value: 1}}}); err != nil {
		return fmt.Errorf("create index on %s: %w", field, err)
	}
	return errTTLRefused
}

// errTTLRefused marks a server without TTL indexes.
var errTTLRefused = errors.New("bench: server refused the TTL index")

// runDoc measures insertOne, findOne by _id, findOne by an indexed field
// and updateOne by _id over opts.Clients connections, on a collection with
// a TTL index on expireAt and an index on email.
func runDoc(ctx context.Context, e *env, c *conn) Result {
	o := e.opts
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "doc", Client: o.Client}
	if err := e.reset(ctx, c); err != nil {
		r.Error = err.Error()
		return r
	}
	setup := c.mongo.Database(o.Database).Collection("doc")
	if err := ensureTTLIndex(ctx, setup, "expireAt", &r); err != nil && !errors.Is(err, errTTLRefused) {
		r.Error = err.Error()
		return r
	}
	if _, err := setup.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}}); err != nil {
		r.Error = fmt.Sprintf("create index on email: %v", err)
		return r
	}
	payload := string(value(o.ValueSize, 'd'))
	expireAt := time.Now().Add(docTTL)
	var (
		coll  *mongo.Collection
		conns []*mongoConn
		addr  string // the lean client's host:port
	)
	if o.Client == ClientDriver {
		// The load gets a client of its own whose pool holds one
		// connection per client goroutine.
		cl, err := mongoClient(ctx, c.Target, o.Clients)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer func() { _ = cl.Disconnect(context.WithoutCancel(ctx)) }()
		coll = cl.Database(o.Database).Collection("doc")
		if err := warmUp(ctx, o.Clients, func(ctx context.Context) error {
			err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int64(-1)}}).Err()
			if errors.Is(err, mongo.ErrNoDocuments) {
				return nil
			}
			return err
		}); err != nil {
			r.Error = err.Error()
			return r
		}
	} else {
		var err error
		if addr, err = mongoHostPort(c.Addr); err != nil {
			r.Error = err.Error()
			return r
		}
		cs, closeAll, err := dialLeanMongo(ctx, addr, c.TLS, o.Clients)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer closeAll()
		conns = cs
	}
	// Inserts draw ids from next; the reads and updates hit ids below it.
	// An insert cut off by the end of its phase may leave a gap, so a read
	// that misses is counted, not failed.
	var next, misses atomic.Int64
	for _, kind := range docOps {
		n := next.Load()
		if kind != "insert" && n == 0 {
			r.notef("%s: skipped, no document was inserted", kind)
			continue
		}
		misses.Store(0)
		e.prog.Phase("doc %s on %s: %d %s clients for %s", kind, c, o.Clients, o.Client, o.Duration)
		// The lean op dials any replacement connection with runDoc's ctx:
		// a phase's ends with the phase.
		f := func(_ context.Context, w int, rng *rand.Rand) (int, error) {
			d := docOp{db: o.Database, kind: kind, payload: payload, expireAt: expireAt}
			switch kind {
			case "insert":
				d.id = next.Add(1) - 1
			case "insert_many":
				d.id = next.Add(docBatch) - docBatch
				lc, err := redialMongo(ctx, conns, w, addr, c.TLS)
				if err != nil {
					return 0, err
				}
				return docBatch, d.run(lc, &misses)
			case "find_indexed":
				d.email = docEmail(rng.Int64N(n))
			default:
				d.id = rng.Int64N(n)
			}
			lc, err := redialMongo(ctx, conns, w, addr, c.TLS)
			if err != nil {
				return 0, err
			}
			return 1, d.run(lc, &misses)
		}
		if coll != nil {
			f = func(ctx context.Context, w int, rng *rand.Rand) (int, error) {
				switch kind {
				case "insert":
					id := next.Add(1) - 1
					_, err := coll.InsertOne(ctx, docDocument(id, expireAt, payload))
					return 1, err
				case "insert_many":
					id := next.Add(docBatch) - docBatch
					docs := make([]any, docBatch)
					for i := range docs {
						docs[i] = docDocument(id+int64(i), expireAt, payload)
					}
					_, err := coll.InsertMany(ctx, docs)
					return docBatch, err
				case "find_id":
					return 1, findOne(ctx, coll, bson.D{{Key: "_id", Value: rng.Int64N(n)}}, &misses)
				case "find_indexed":
					return 1, findOne(ctx, coll, bson.D{{Key: "email", Value: docEmail(rng.Int64N(n))}}, &misses)
				case "find_and_modify":
					err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: rng.Int64N(n)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}},
						options.FindOneAndUpdate().SetReturnDocument(options.After)).Err()
					if errors.Is(err, mongo.ErrNoDocuments) {
						misses.Add(1)
						return 1, nil
					}
					return 1, err
				default:
					_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: rng.Int64N(n)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
					return 1, err
				}
			}
		}
		ph, err := closedLoop(ctx, o.Clients, o.Duration, e.prog, "doc "+kind, f)
		if err != nil {
			r.notef("%s: %v", kind, err)
			continue
		}
		r.add(kind+".ops", ph.throughput(), "ops/s", Higher)
		r.addLatencies(kind, ph.lat.Summary())
		if m := misses.Load(); m > 0 {
			r.notef("%s: %d of %d reads found no document", kind, m, ph.ops)
		}
	}
	r.add("documents", float64(next.Load()), "docs", Neither)
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// docDocument returns doc's document with _id id, as the driver phases
// insert it.
func docDocument(id int64, expireAt time.Time, payload string) bson.D {
	return bson.D{
		{Key: "_id", Value: id}, {Key: "email", Value: docEmail(id)},
		{Key: "expireAt", Value: expireAt}, {Key: "n", Value: int64(0)}, {Key: "payload", Value: payload},
	}
}

// findOne reads one document, counting a miss in misses.
func findOne(ctx context.Context, coll *mongo.Collection, filter bson.D, misses *atomic.Int64) error {
	err := coll.FindOne(ctx, filter).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		misses.Add(1)
		return nil
	}
	return err
}

// docOp is one request of a doc phase through a lean connection: the same
// commands, with the same documents, the driver sends for insertOne,
// findOne, updateOne and findOneAndUpdate.
type docOp struct {
	db       string // the database; the collection is always "doc"
	kind     string
	id       int64
	email    string
	payload  string
	expireAt time.Time
}

// count returns how many documents an insert carries: docBatch for
// insert_many (ids from d.id on), one otherwise.
func (d docOp) count() int {
	if d.kind == "insert_many" {
		return docBatch
	}
	return 1
}

// run sends the command on c and checks its reply: an insert must say
// n: 1, a find that returns no document counts a miss in misses.
func (d docOp) run(c *mongoConn, misses *atomic.Int64) error {
	var b bsonBuilder
	b.start(c.doc[:0])
	switch d.kind {
	case "insert", "insert_many":
		b.string("insert", "doc")
		b.array("documents")
		for i := range d.count() {
			id := d.id + int64(i)
			b.document(strconv.Itoa(i))
			b.int64("_id", id)
			b.string("email", docEmail(id))
			b.dateTime("expireAt", d.expireAt)
			b.int64("n", 0)
			b.string("payload", d.payload)
			b.close()
		}
		b.close()
		b.boolean("ordered", true)
	case "find_id", "find_indexed":
		b.string("find", "doc")
		b.document("filter")
		if d.kind == "find_id" {
			b.int64("_id", d.id)
		} else {
			b.string("email", d.email)
		}
		b.close()
		b.int64("limit", 1)
		b.boolean("singleBatch", true)
	case "find_and_modify":
		b.string("findAndModify", "doc")
		incByID(&b, "query", "update", d.id)
		b.boolean("new", true)
	default:
		b.string("update", "doc")
		b.array("updates")
		b.document("0")
		incByID(&b, "q", "u", d.id)
		b.close()
		b.close()
		b.boolean("ordered", true)
	}
	b.string("$db", d.db)
	c.doc = b.end()
	body, err := c.command()
	if err != nil {
		return fmt.Errorf("%s: %w", d.kind, err)
	}
	switch d.kind {
	case "insert", "insert_many":
		n, err := replyCount(body)
		if err != nil {
			return err
		}
		if want := int64(d.count()); n != want {
			return fmt.Errorf("%w: insert of %d documents says n: %d", ErrMongoProtocol, want, n)
		}
	case "find_id", "find_indexed":
		k, err := firstBatchLen(body)
		if err != nil {
			return err
		}
		if k == 0 {
			misses.Add(1)
		}
	case "find_and_modify":
		v, err := body.LookupErr("value")
		if err != nil {
			return fmt.Errorf("%w: findAndModify reply has no value", ErrMongoProtocol)
		}
		if v.Type == bson.TypeNull {
			misses.Add(1)
		}
	}
	return nil
}

// incByID adds the filter {_id: id} under filterKey and the update
// {$inc: {n: 1}} under updateKey: the update and findAndModify phases'
// request.
func incByID(b *bsonBuilder, filterKey, updateKey string, id int64) {
	b.document(filterKey)
	b.int64("_id", id)
	b.close()
	b.document(updateKey)
	b.document("$inc")
	b.int32("n", 1)
	b.close()
	b.close()
}

// dialLeanMongo opens n lean connections to addr (host:port), closed by
// the returned function.
func dialLeanMongo(ctx context.Context, addr string, tlsCfg *tls.Config, n int) ([]*mongoConn, func(), error) {
	conns := make([]*mongoConn, 0, n)
	closeAll := func() {
		for _, c := range conns {
			c.close()
		}
	}
	for range n {
		c, err := dialMongo(ctx, addr, tlsCfg)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns = append(conns, c)
	}
	return conns, closeAll, nil
}
