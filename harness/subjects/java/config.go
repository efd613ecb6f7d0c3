package java

import (
	"errors"

	"github.com/kreactor/kreactor/consumer"
)

// Properties maps a harness consumer.Config onto Java consumer properties,
// with group.protocol=consumer (KIP-848, as our reactor). Every field that
// has a Java setting is set (consumer/config's java tags), so both subjects
// run the same configuration; an empty group.id or group.instance.id is
// left out; MaxBufferedRecords (no Java setting), Logger and Rand are
// ignored. Config.Dial cannot be honoured by a JVM and is an error. Put
// extra or overriding properties (group.protocol=classic, ...) over the
// result.
func Properties(c consumer.Config) (map[string]string, error) {
	if c.Dial != nil {
		return nil, errors.New("java subject: Config.Dial (e.g. kfake's virtual network) cannot be used by a Java consumer")
	}
	p := c.JavaProperties()
	p["group.protocol"] = "consumer"
	return p, nil
}

// ShareProperties maps a consumer.ShareConfig onto Java share consumer
// properties (see Properties).
func ShareProperties(c consumer.ShareConfig) (map[string]string, error) {
	if c.Dial != nil {
		return nil, errors.New("java subject: ShareConfig.Dial cannot be used by a Java consumer")
	}
	return c.JavaProperties(), nil
}
