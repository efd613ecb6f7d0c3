package vocab

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// CarriesTopics reports whether a fault's topic selector can match
// requests of key: their body names a topic (by name or id) somewhere, or
// their answer is checked per topic (ShareGroupDescribe, whose members'
// assigned topics are). ApiVersions, FindCoordinator, Heartbeat, JoinGroup
// and their like carry none, so a topic selector on them would never fire.
// An API kmsg does not know carries none.
func CarriesTopics(key kmsg.Key) bool {
	topicKeysOnce.Do(func() {
		topicKeys = map[kmsg.Key]bool{kmsg.ShareGroupDescribe: true}
		for k := int16(0); k < 200; k++ {
			if req := kmsg.RequestForKey(k); req != nil && hasTopicField(reflect.TypeOf(req), map[reflect.Type]bool{}) {
				topicKeys[kmsg.Key(k)] = true
			}
		}
	})
	return topicKeys[key]
}

var (
	topicKeysOnce sync.Once
	topicKeys     map[kmsg.Key]bool
)

// hasTopicField: t, or a struct it points to or holds, has a field whose
// name mentions a topic (Topic, TopicID, Topics, TopicNames,
// SubscribedTopicNames).
func hasTopicField(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if strings.Contains(f.Name, "Topic") || hasTopicField(f.Type, seen) {
			return true
		}
	}
	return false
}

// MaxTopicName is the longest topic name Kafka accepts.
const MaxTopicName = 249

// CheckTopicName returns an error naming name unless Kafka would accept it
// as a topic name: 1..249 characters of [a-zA-Z0-9._-], and neither "."
// nor "..".
func CheckTopicName(name string) error {
	switch {
	case name == "" || len(name) > MaxTopicName:
		return fmt.Errorf("topic name %q: want 1..%d characters of [a-zA-Z0-9._-]", name, MaxTopicName)
	case name == "." || name == "..":
		return fmt.Errorf("topic name %q: Kafka refuses \".\" and \"..\"", name)
	case strings.ContainsFunc(name, func(c rune) bool {
		return !(c == '.' || c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}):
		return fmt.Errorf("topic name %q: want 1..%d characters of [a-zA-Z0-9._-]", name, MaxTopicName)
	}
	return nil
}
