package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/consumer/config"
)

// RetrySchedule is Kafka's documented client retry backoff, written here
// from the documentation rather than taken from the subject's code (a
// bound derived from the subject's own backoff moves with its bugs; a
// mutant whose backoff never grew sent 5x more FindCoordinator, and a bound
// computed from managers.Backoff grew from 9 to 40 to match).
//
// The rule, from the consumer configuration documentation of
// retry.backoff.ms and retry.backoff.max.ms (KIP-580): the wait before the
// next attempt of a request that keeps failing starts at retry.backoff.ms
// and doubles with each further failure up to retry.backoff.max.ms; a
// random jitter of 20% scales each wait into [0.8, 1.2] of that value; when
// retry.backoff.ms is not below retry.backoff.max.ms, every wait is
// retry.backoff.max.ms with no growth.
//
// Bounds use the shortest waits the rule allows (every jitter at -20%), so
// a count derived from them is the most attempts any conforming client can
// make, whatever its random draws.
type RetrySchedule struct {
	Initial time.Duration // consumer.Config.RetryBackoff
	Max     time.Duration // consumer.Config.RetryBackoffMax
}

// The Java settings of the schedule, read from their declaration
// (consumer/config).
var (
	retryBackoffName    = javaName("RetryBackoff")
	retryBackoffMaxName = javaName("RetryBackoffMax")
)

// javaName is the Java setting of consumer.Config's field.
func javaName(field string) string {
	f, ok := config.Lookup[config.Consumer](field)
	if !ok || f.Java == "" {
		panic("measure: consumer.Config has no field " + field + " with a Java setting")
	}
	return f.Java
}

// KafkaBackoffJitter is the documented jitter factor of the retry backoff
// (CommonClientConfigs: "a randomized jitter with a factor of 0.2").
const KafkaBackoffJitter = 0.2

// kafkaBackoffGrowth is the documented growth between two consecutive
// waits: the backoff "will increase exponentially", doubling.
const kafkaBackoffGrowth = 2

// Schedule is the retry schedule of a consumer configured with cfg.
func Schedule(cfg consumer.Config) RetrySchedule {
	return RetrySchedule{Initial: cfg.RetryBackoff, Max: cfg.RetryBackoffMax}
}

// nominal is the wait before retry n (1-based) without jitter.
func (s RetrySchedule) nominal(n int) time.Duration {
	if s.Initial >= s.Max {
		return s.Max
	}
	d := float64(s.Initial) * math.Pow(kafkaBackoffGrowth, float64(n-1))
	return time.Duration(math.Min(d, float64(s.Max)))
}

// MinWait is the shortest wait the schedule allows before retry n
// (1-based): the nominal wait with the jitter at its minimum. n <= 0 is 0.
func (s RetrySchedule) MinWait(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(float64(s.nominal(n)) * (1 - KafkaBackoffJitter))
}

// MaxWait is the longest single wait the schedule allows: retry.backoff.max.ms
// with the jitter at its maximum (the documentation puts the jittered wait
// within 20% above the computed value).
func (s RetrySchedule) MaxWait() time.Duration {
	return time.Duration(float64(s.Max) * (1 + KafkaBackoffJitter))
}

// MaxAttemptsIn is the most attempts of one failing request a conforming
// client can make in window: the first at once, then one after each
// shortest wait. A schedule whose shortest wait is zero bounds nothing
// (math.MaxInt).
func (s RetrySchedule) MaxAttemptsIn(window time.Duration) int {
	n, elapsed := 1, time.Duration(0)
	for {
		w := s.MinWait(n)
		if w <= 0 {
			return math.MaxInt
		}
		if elapsed+w > window {
			return n
		}
		elapsed += w
		n++
	}
}

// String renders the schedule for bound texts, naming the settings, e.g.
// "retry.backoff.ms 100ms x2 to retry.backoff.max.ms 1s +-20%".
func (s RetrySchedule) String() string {
	return fmt.Sprintf("%s %s x%d to %s %s +-%d%%", retryBackoffName, s.Initial, kafkaBackoffGrowth, retryBackoffMaxName, s.Max, int(KafkaBackoffJitter*100))
}
