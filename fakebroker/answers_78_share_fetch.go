package fakebroker

import "github.com/twmb/franz-go/pkg/kmsg"

// ShareFetch (key 78, KIP-932), as Kafka 4.4 answers it (measured by
// specs/fidelity against 4.4.0): every partition in the answer carries a
// record set, empty (length 0) where nothing was acquired, also a
// partition that is there only for the result of the acknowledgements the
// request carried. kfake answers those partitions with null records
// (length -1). kafka-clients 4.4.0 reads a null record set as empty
// (ShareFetchResponse.recordsOrFail), but a client that reads it as a
// malformed answer would fail on kfake only.
func answerShareFetch(_ *Broker, _ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.ShareFetchResponse)
	changed := false
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			p := &resp.Topics[i].Partitions[j]
			if p.Records == nil {
				p.Records = []byte{}
				changed = true
			}
		}
	}
	return changed
}
