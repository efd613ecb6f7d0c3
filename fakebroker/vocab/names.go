package vocab

import (
	"errors"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ParseAPIKey returns the Kafka API named s: its name as kmsg spells it
// ("FindCoordinator", "ConsumerGroupHeartbeat") or its number ("10"), or
// false for an API kmsg does not know.
func ParseAPIKey(s string) (kmsg.Key, bool) {
	if v, err := strconv.Atoi(s); err == nil && v >= 0 && v < 1<<15 && kmsg.RequestForKey(int16(v)) != nil {
		return kmsg.Key(v), true
	}
	for k := int16(0); k < 200; k++ {
		if kmsg.RequestForKey(k) != nil && kmsg.NameForKey(k) == s {
			return kmsg.Key(k), true
		}
	}
	return 0, false
}

// ParseError returns the Kafka error whose protocol name is s
// ("NOT_COORDINATOR", "FENCED_MEMBER_EPOCH"), or false.
func ParseError(s string) (*kerr.Error, bool) {
	for code := int16(-1); code < 200; code++ {
		var ke *kerr.Error
		if errors.As(kerr.ErrorForCode(code), &ke) && ke.Message == s {
			return ke, true
		}
	}
	return nil, false
}
