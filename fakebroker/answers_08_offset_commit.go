package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetCommit (key 8), as Kafka 4.4 answers it (measured by
// specs/fidelity against 4.4.0): from v9 on, a commit with a generation or
// member epoch (>= 0) for a group the coordinator does not know answers
// GROUP_ID_NOT_FOUND on every partition (KIP-848 made the code usable by
// both protocols; v8 and older keep ILLEGAL_GENERATION). kfake answers
// ILLEGAL_GENERATION at every version. A commit with generation -1 (a
// consumer outside group management, or an admin) creates the group, on
// both. An ILLEGAL_GENERATION a fault installed through the Broker injects
// is kept.
func answerOffsetCommit(b *Broker, kreq kmsg.Request, kresp kmsg.Response) bool {
	req, resp := kreq.(*kmsg.OffsetCommitRequest), kresp.(*kmsg.OffsetCommitResponse)
	if req.Version < 9 || req.Generation < 0 {
		return false
	}
	illegal := false
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			illegal = illegal || p.ErrorCode == kerr.IllegalGeneration.Code
		}
	}
	// kfake drops the group it created for a commit it refused, so an
	// unknown group is still unknown when its answer is written.
	if !illegal || b.injects(kmsg.OffsetCommit, kerr.IllegalGeneration.Code) || !b.groupUnknown(req.Group) {
		return false
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if p := &resp.Topics[i].Partitions[j]; p.ErrorCode == kerr.IllegalGeneration.Code {
				p.ErrorCode = kerr.GroupIDNotFound.Code
			}
		}
	}
	return true
}
