package fakebroker

import "github.com/twmb/franz-go/pkg/kmsg"

// ConsumerGroupHeartbeat (key 68, KIP-848) and ShareGroupHeartbeat (key 76,
// KIP-932), as Kafka 4.4 answers them (measured by specs/fidelity against
// 4.4.0): only an answer that keeps the member in the group hands out a
// heartbeat interval. An error answer and the answer to a leave (member
// epoch -1, or -2 for a static member) carry heartbeat interval 0; kfake
// answers the configured interval on both. A ConsumerGroupHeartbeat Kafka
// refuses before it reaches the group is answered with Kafka's refusal
// (answers_68_consumer_group_heartbeat.go).
func answerConsumerGroupHeartbeat(b *Broker, kreq kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.ConsumerGroupHeartbeatResponse)
	refused := answerRefusal(b, kreq.(*kmsg.ConsumerGroupHeartbeatRequest), resp)
	return noInterval(resp.ErrorCode, resp.MemberEpoch, &resp.HeartbeatIntervalMillis) || refused
}

func answerShareGroupHeartbeat(_ *Broker, _ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.ShareGroupHeartbeatResponse)
	return noInterval(resp.ErrorCode, resp.MemberEpoch, &resp.HeartbeatIntervalMillis)
}

// noInterval zeroes *interval on an error or leave answer.
func noInterval(errCode int16, epoch int32, interval *int32) bool {
	if (errCode == 0 && epoch >= 0) || *interval == 0 {
		return false
	}
	*interval = 0
	return true
}
