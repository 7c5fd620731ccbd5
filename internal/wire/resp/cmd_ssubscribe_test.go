package resp_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisShardedPubSub: SPUBLISH reaches SSUBSCRIBE's subscribers as
// `smessage` and nobody else; PUBLISH does not reach them; PUBSUB
// SHARDCHANNELS and SHARDNUMSUB count them apart from plain channels.
func TestRedisShardedPubSub(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	pub := e.client(2)
	for _, proto := range []int{2, 3} {
		// channels of their own per protocol: the previous round's
		// subscribers may still be leaving
		sc1, sc2 := "sc1-"+itoaTest(proto), "sc2-"+itoaTest(proto)
		sub := e.client(proto)
		ps := sub.SSubscribe(ctx, sc1, sc2)
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		plain := e.client(proto).Subscribe(ctx, sc1)
		if _, err := plain.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := pub.SPublish(ctx, sc1, "hello").Result(); err != nil || n != 1 {
			t.Fatalf("RESP%d: SPUBLISH = %d %v, want 1", proto, n, err)
		}
		if n, err := pub.Publish(ctx, sc1, "plain").Result(); err != nil || n != 1 {
			t.Fatalf("RESP%d: PUBLISH = %d %v, want 1 (the plain subscriber only)", proto, n, err)
		}
		msg, err := ps.ReceiveTimeout(ctx, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := msg.(*redis.Message); !ok || m.Channel != sc1 || m.Payload != "hello" {
			t.Fatalf("RESP%d: shard subscriber got %#v", proto, msg)
		}
		pm, err := plain.ReceiveTimeout(ctx, 5*time.Second)
		if m, ok := pm.(*redis.Message); err != nil || !ok || m.Payload != "plain" {
			t.Fatalf("RESP%d: plain subscriber got %#v %v", proto, pm, err)
		}
		if got := pub.PubSubShardChannels(ctx, "*-"+itoaTest(proto)).Val(); !reflect.DeepEqual(got, []string{sc1, sc2}) {
			t.Fatalf("SHARDCHANNELS %v", got)
		}
		if got := pub.PubSubShardNumSub(ctx, sc1, "nope").Val(); got[sc1] != 1 || got["nope"] != 0 {
			t.Fatalf("SHARDNUMSUB %v", got)
		}
		if got := pub.PubSubNumSub(ctx, sc2).Val(); got[sc2] != 0 {
			t.Fatalf("NUMSUB counts a shard channel: %v", got)
		}
		if err := ps.SUnsubscribe(ctx); err != nil {
			t.Fatal(err)
		}
		ps.Close()
		plain.Close()
	}
	runSteps(t, e, pub, []step{
		reply(int64(0), "spublish", "nobody-listens", "x"),
		reply([]any{"sunsubscribe", nil, int64(0)}, "sunsubscribe"),
	})
}
