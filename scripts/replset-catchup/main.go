// Command replset-catchup measures how long a new member of a replica set
// takes to catch up: it loads --docs documents into the primary (--primary,
// a MongoDB URI) in insertMany batches of --batch from --clients
// connections, waits until the primary has taken a raft snapshot whose
// log has been trimmed (--snapshot-dir names the primary's
// raft-snapshots directory; empty: do not wait), adds the member --add
// through the primary's admin API (--admin), and prints the time until
// the member (--member, a MongoDB address) holds every document.
//
// scripts/replset-catchup.sh starts the processes and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

func main() {
	primary := flag.String("primary", "", "the primary's MongoDB URI")
	admin := flag.String("admin", "", "the primary's admin URL")
	add := flag.String("add", "", "raft address of the member to add")
	member := flag.String("member", "", "MongoDB address of the member to add")
	docs := flag.Int("docs", 1_000_000, "documents to load")
	batch := flag.Int("batch", 50, "documents per insertMany")
	clients := flag.Int("clients", 8, "loading connections")
	snapDir := flag.String("snapshot-dir", "", "the primary's raft-snapshots directory")
	flag.Parse()
	ctx := context.Background()

	cl, err := mongo.Connect(options.Client().ApplyURI(*primary).SetMaxPoolSize(uint64(*clients)))
	if err != nil {
		log.Fatal(err)
	}
	coll := cl.Database("catchup").Collection("docs")
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < *clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				first := int(next.Add(int64(*batch))) - *batch
				if first >= *docs {
					return
				}
				var ds []any
				for i := first; i < min(first+*batch, *docs); i++ {
					ds = append(ds, user{ID: i, Name: fmt.Sprintf("user-%08d", i), Score: i % 1000, Pad: strings.Repeat("x", 40)})
				}
				if _, err := coll.InsertMany(ctx, ds); err != nil {
					log.Fatalf("insert at %d: %v", first, err)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("loaded %d documents in %v\n", *docs, time.Since(start).Round(time.Millisecond))

	if *snapDir != "" {
		start = time.Now()
		for !hasSnapshot(*snapDir) {
			time.Sleep(time.Second)
		}
		fmt.Printf("primary snapshot taken %v after the load\n", time.Since(start).Round(time.Second))
	}

	start = time.Now()
	resp, err := http.Post(*admin+"/v1/replicas", "application/json", strings.NewReader(fmt.Sprintf(`{"raftAddr":%q}`, *add)))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		log.Fatalf("add member: %s", resp.Status)
	}
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + *member + "/?directConnection=true").
		SetReadPreference(readpref.SecondaryPreferred()))
	if err != nil {
		log.Fatal(err)
	}
	mcoll := mc.Database("catchup").Collection("docs")
	fmt.Printf("member added in %v\n", time.Since(start).Round(time.Millisecond))
	report := time.Now()
	for {
		n, err := mcoll.EstimatedDocumentCount(ctx)
		if err == nil && n == int64(*docs) {
			break
		}
		if time.Since(report) > 10*time.Second {
			fmt.Printf("after %v the member holds %d documents (%v)\n", time.Since(start).Round(time.Second), n, err)
			report = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("new member holds the %d documents %v after it was added\n", *docs, time.Since(start).Round(time.Millisecond))
}

// hasSnapshot reports whether dir, a raft file snapshot store, holds a
// complete snapshot: a directory under snapshots/ with its meta.json (one
// being written ends in .tmp).
func hasSnapshot(dir string) bool {
	dir = filepath.Join(dir, "snapshots")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasSuffix(e.Name(), ".tmp") {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "meta.json")); err == nil {
				return true
			}
		}
	}
	return false
}

// user is one loaded document; the driver encodes it by its bson tags,
// since only the packages in internal/lint's table import bson directly.
type user struct {
	ID    int    `bson:"_id"`
	Name  string `bson:"name"`
	Score int    `bson:"score"`
	Pad   string `bson:"pad"`
}
