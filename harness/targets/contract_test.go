package targets

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets/kafka"
	"github.com/kreactor/kreactor/managers"
)

// contractTimeout bounds one target's contract run (a real cluster's start
// included).
const contractTimeout = 4 * time.Minute

// TestTargetContract runs the same checks on every target: what a spec
// reads back through the Cluster (group state, committed offsets, the
// coordinator, topic admin, group configs, the recorder, observers and a
// fault) agrees with what clients see on the wire at Addrs. On kafka this
// exercises every kadm call of the target; it is skipped when Docker or the
// image is missing unless KREACTOR_REQUIRE_DOCKER is set.
func TestTargetContract(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			if name == kafka.Name {
				requireKafka(t)
			}
			ctx, cancel := context.WithTimeout(t.Context(), contractTimeout)
			defer cancel()
			tg, _ := Lookup(name)
			checkContract(ctx, t, tg)
		})
	}
	if err := CloseShared(); err != nil {
		t.Fatalf("CloseShared: %v", err)
	}
}

func requireKafka(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := containers.DockerAvailable(ctx); err != nil {
		if os.Getenv(containers.EnvRequireDocker) == "" {
			t.Skipf("skipped: %v (set %s=1 to fail instead)", err, containers.EnvRequireDocker)
		}
		t.Fatalf("%s is set: %v", containers.EnvRequireDocker, err)
	}
	if err := containers.ImagePresent(ctx, containers.ResolveImage("")); err != nil {
		t.Fatal(err)
	}
}

var contractSeq atomic.Int64

func checkContract(ctx context.Context, t *testing.T, tg harness.Target) {
	suffix := fmt.Sprintf("%d-%x", contractSeq.Add(1), time.Now().UnixNano()&0xffffff)
	topic, group, client := "contract-"+suffix, "contract-g-"+suffix, "contract-c-"+suffix
	cl, err := tg.Start(ctx, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 2}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer func() {
		if err := cl.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if cl.Target() != tg.Name() || cl.Brokers() != 1 || len(cl.Addrs()) == 0 {
		t.Fatalf("cluster says target %q, %d brokers, addrs %v", cl.Target(), cl.Brokers(), cl.Addrs())
	}
	counts, err := cl.Produce(ctx, topic, 10, nil)
	if err != nil || counts[0] != 5 || counts[1] != 5 {
		t.Fatalf("Produce: %v, %v; want 5 records per partition", counts, err)
	}

	// Observe sees every FindCoordinator a client sends.
	var observed atomic.Int64
	obs, err := cl.Observe(ctx, kmsg.FindCoordinator, func(o harness.Observed) {
		if _, ok := o.Req.(*kmsg.FindCoordinatorRequest); ok {
			observed.Add(1)
		}
	})
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	mark := cl.Recorder().Mark()

	// A KIP-848 member consumes everything and commits.
	cons, err := kgo.NewClient(kgo.SeedBrokers(cl.Addrs()...), kgo.ClientID(client),
		kgo.ConsumeTopics(topic), kgo.ConsumerGroup(group), kgo.ServerSideBalancer(),
		kgo.Balancers(kgo.RangeBalancer()), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for got := 0; got < 10; {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of 10: %v", got, err)
		}
		fs.EachError(func(tp string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", tp, p, err) })
		got += fs.NumRecords()
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}

	gi, err := cl.GroupInfo(ctx, group)
	if err != nil {
		t.Fatalf("GroupInfo: %v", err)
	}
	want := map[managers.TopicPartition]int64{{Topic: topic, Partition: 0}: 5, {Topic: topic, Partition: 1}: 5}
	if !gi.Exists || gi.Epoch <= 0 || len(gi.Members) != 1 || gi.Members[0].ClientID != client || gi.Members[0].Assigned != 2 || !maps.Equal(gi.Commits, want) {
		t.Fatalf("GroupInfo = %+v; want one member %q with 2 partitions, epoch > 0, commits %v", gi, client, want)
	}
	if n := (harness.Window{From: mark, To: time.Now()}).Count(cl.Recorder(), kmsg.ConsumerGroupHeartbeat, client); n == 0 {
		t.Fatal("the recorder saw no ConsumerGroupHeartbeat from the consumer")
	}
	if observed.Load() == 0 {
		t.Fatal("Observe saw no FindCoordinator")
	}
	obs.Heal()

	// The coordinator the target names is the one clients are told.
	raw, err := kgo.NewClient(kgo.SeedBrokers(cl.Addrs()...), kgo.ClientID("contract-admin"))
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(raw)
	defer adm.Close()
	node, err := cl.Coordinator(ctx, group)
	if err != nil {
		t.Fatalf("Coordinator: %v", err)
	}
	if told := adm.FindGroupCoordinators(ctx, group)[group]; told.Err != nil || told.NodeID != node {
		t.Fatalf("Coordinator = %d; clients are told %d (%v)", node, told.NodeID, told.Err)
	}

	// A coordinator fault is seen by clients and healed.
	f, err := cl.CoordinatorUnavailable(ctx, group)
	if err != nil {
		t.Fatalf("CoordinatorUnavailable: %v", err)
	}
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKeys = []string{group}
	resp, err := fc.RequestWith(ctx, raw) // kgo answers it as is; kadm reports per key
	if err != nil || len(resp.Coordinators) != 1 || !errors.Is(kerr.ErrorForCode(resp.Coordinators[0].ErrorCode), kerr.CoordinatorNotAvailable) {
		t.Fatalf("FindCoordinator under the fault: %+v, %v; want COORDINATOR_NOT_AVAILABLE", resp, err)
	}
	if f.Hits() == 0 {
		t.Fatal("fault Hits = 0 after faulting a FindCoordinator")
	}
	f.Heal()
	if told := adm.FindGroupCoordinators(ctx, group)[group]; told.Err != nil {
		t.Fatalf("FindCoordinator after Heal: %v", told.Err)
	}

	// The member leaves; the group stays with its commits.
	cons.Close()
	deadline := time.Now().Add(30 * time.Second)
	for gi, err = cl.GroupInfo(ctx, group); err == nil && len(gi.Members) > 0 && time.Now().Before(deadline); gi, err = cl.GroupInfo(ctx, group) {
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || !gi.Exists || len(gi.Members) != 0 || !maps.Equal(gi.Commits, want) {
		t.Fatalf("GroupInfo after the leave = %+v, %v; want no members and the commits %v", gi, err, want)
	}
	if gi, err := cl.GroupInfo(ctx, "contract-no-such-group-"+suffix); err != nil || gi.Exists || len(gi.Commits) != 0 {
		t.Fatalf("GroupInfo of an unknown group = %+v, %v; want Exists false, no commits, no error", gi, err)
	}

	// Topic admin: create with configs, trim.
	creator, ok := cl.(harness.TopicCreator)
	trimmer, ok2 := cl.(harness.LogTrimmer)
	if !ok || !ok2 {
		t.Fatalf("target %s lacks TopicCreator (%v) or LogTrimmer (%v)", tg.Name(), ok, ok2)
	}
	trimmed := topic + "-trim"
	if err := creator.CreateTopic(ctx, trimmed, 1, map[string]string{"retention.ms": "3600000"}); err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	if _, err := cl.Produce(ctx, trimmed, 4, nil); err != nil {
		t.Fatalf("Produce to the created topic: %v", err)
	}
	if err := trimmer.DeleteRecords(ctx, trimmed, 0, 3); err != nil {
		t.Fatalf("DeleteRecords: %v", err)
	}
	starts, err := adm.ListStartOffsets(ctx, trimmed)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := starts.Lookup(trimmed, 0); o.Err != nil || o.Offset != 3 {
		t.Fatalf("log start offset after DeleteRecords(3) = %+v; want 3", o)
	}
	cfgs, err := adm.DescribeTopicConfigs(ctx, trimmed)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := cfgs.On(trimmed, nil); err != nil || !hasConfig(c.Configs, "retention.ms", "3600000") {
		t.Fatalf("configs of the created topic: %+v, %v; want retention.ms=3600000", c.Configs, err)
	}

	// Group configs are accepted for a share group.
	if err := cl.SetGroupConfigs(ctx, "contract-share-"+suffix, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		t.Fatalf("SetGroupConfigs: %v", err)
	}
}

func hasConfig(cs []kadm.Config, key, value string) bool {
	for _, c := range cs {
		if c.Key == key && c.Value != nil && *c.Value == value {
			return true
		}
	}
	return false
}
