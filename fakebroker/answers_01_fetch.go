package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Fetch (key 1) with no partition to read, as Kafka 4.4 answers it
// (measured by specs/fidelity against 4.4.0): at once, whatever its
// MaxWaitMillis. Kafka applies the request's fetch session first
// (FetchManager.newContext), then KafkaApis.handleFetchRequest answers
// without reading when no partition is left, and
// ReplicaManager.fetchMessages likewise responds immediately when the fetch
// "does not require any data" (fetchInfos.isEmpty), as it does when
// maxWait <= 0 or enough bytes are readable. The Fetches that leave nothing
// to read: a session close (SessionEpoch -1 with the session's id, no
// partitions; the Java consumer's close sends one to each broker it has a
// session with and waits for the answers within its close timer), a full or
// sessionless Fetch naming no partition, and an incremental Fetch that
// forgets every partition of its session (Kafka closes the emptied session
// and answers sessionless). kfake parks every Fetch whose readable bytes
// fall short of MinBytes until MaxWaitMillis, one with nothing to read
// included, so on kfake a Java consumer's close took its
// fetch.max.wait.ms (500 ms) longer than on Kafka:
// specs/scenarios/kafka-18569-close-coordinator-lost-after-leave.yaml on
// java (kafka-clients 4.4.0) closed in 1,010-1,049 ms on kfake and in
// 357-850 ms on Kafka 4.4.0, 5 runs each.
//
// A rewrite of the answer cannot change when kfake answers, so this
// correction is a pass-through control on Fetch, installed by Start before
// anything else can install one (kfake runs controls in the order
// installed). For a request that leaves nothing to read
// (wire.FetchSessions.ReadsNothing, on the sessions the tap learns from
// kfake's answers: answerFetchSessions) it lowers MaxWaitMillis to 0, and
// kfake handles the request as ever: its session handling (a close still
// removes the session), its faults and the controls installed later
// (ObserveKey, holds and delays, which see MaxWaitMillis 0) all act on it,
// and the recorder keeps the bytes as the client sent them. A hold or delay
// on Fetch still holds or delays the request, which is answered once
// released; a fault answers its error as before (kfake checks faults after
// controls, and answers an error at once either way). Config.KfakeAnswers
// leaves the control out.
func (b *Broker) fetchNothingToRead(kreq kmsg.Request) (kmsg.Response, error, bool) {
	// Every Fetch runs this on kfake's way to handling it: no allocation.
	if req, ok := kreq.(*kmsg.FetchRequest); ok && req.MaxWaitMillis > 0 && b.sessions.ReadsNothing(b.cluster.CurrentNode(), req) {
		req.MaxWaitMillis = 0
	}
	return nil, nil, false // pass through: kfake handles the request
}

// installFetchNothingToRead installs fetchNothingToRead for the life of the
// Broker (Close removes it).
func (b *Broker) installFetchNothingToRead() error {
	return b.installControl(int16(kmsg.Fetch), newHandle(b, "fetch-nothing-to-read", -1, nil), b.fetchNothingToRead)
}

// tracksFetchSessions reports whether the tap keeps a request with header h
// until its answer for the fetch sessions: Fetch v7+ (KIP-227).
func tracksFetchSessions(h wire.RequestHeader) bool {
	return h.Key == kmsg.Fetch && h.Version >= 7
}

// answerFetchSessions moves the fetch sessions on by rf, a Fetch kfake
// answered with frame on node, and returns frame as it is: kfake's Fetch
// answers need no correction of their bytes.
func (b *Broker) answerFetchSessions(node int32, rf *wire.RequestFrame, frame []byte) []byte {
	if err := b.sessions.Observe(node, rf, frame); err != nil {
		b.log.Warn("fakebroker: cannot read kfake's fetch session fields; sessions not tracked", "node", node, "version", rf.Version, "err", err)
	}
	return frame
}
