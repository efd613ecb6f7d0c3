package fakebroker

import "github.com/twmb/franz-go/pkg/kmsg"

// FindCoordinator (key 10), as Kafka 4.4 answers it (measured by
// specs/fidelity against 4.4.0): a key answered with an error names no
// node: node id -1, host "", port -1 (Kafka's Node.noNode()). kfake answers
// node 0, port 0, so a client reading the node without the error would
// connect to broker 0.
func answerFindCoordinator(_ *Broker, _ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.FindCoordinatorResponse)
	changed := false
	if resp.Version < 4 {
		if resp.ErrorCode != 0 && (resp.NodeID != -1 || resp.Host != "" || resp.Port != -1) {
			resp.NodeID, resp.Host, resp.Port = -1, "", -1
			changed = true
		}
		return changed
	}
	for i := range resp.Coordinators {
		c := &resp.Coordinators[i]
		if c.ErrorCode != 0 && (c.NodeID != -1 || c.Host != "" || c.Port != -1) {
			c.NodeID, c.Host, c.Port = -1, "", -1
			changed = true
		}
	}
	return changed
}
