package reactor

import "strings"

// Input is a set of enabling inputs: the fixed, enumerated kinds of thing that
// can let a manager that returned Await make progress (KIP-1371, "Manager
// results distinguish ... waiting for an enabling input"). There is no
// dynamic registry: a new kind of input is a new constant here.
type Input uint16

const (
	// InputResponse: a response (or transport error) to a request this
	// manager has in flight.
	InputResponse Input = 1 << iota
	// InputCoordinator: the group (or share) coordinator becomes known.
	InputCoordinator
	// InputMetadata: partition leaders and topic ids become known.
	InputMetadata
	// InputMembership: the member joins, gets an epoch, or its assignment
	// changes.
	InputMembership
	// InputPositions: fetch positions for assigned partitions become known.
	InputPositions
	// InputApplication: an application call (Subscribe, Poll, CommitSync,
	// Close, ...) arrives.
	InputApplication
	// InputBufferDrained: the application takes buffered records, making
	// room in a full fetch buffer.
	InputBufferDrained
	// InputPublication: this step's decision is published and its effects
	// have run. A result awaiting it makes the step's Decision.Wake the
	// step's own time, so the driver steps again at once, after the
	// effects: for work that must follow what the step releases, as the
	// next Fetch follows the Poll answer that took the records before it
	// (Java's AsyncKafkaConsumer.poll collects the fetch, then
	// sendPrefetches wakes the network thread to build the next one).
	InputPublication

	inputEnd
)

var inputNames = [...]string{
	"response", "coordinator", "metadata", "membership", "positions",
	"application", "buffer-drained", "publication",
}

// Has reports whether every input in o is in i.
func (i Input) Has(o Input) bool { return i&o == o && o != 0 }

// Valid reports whether i is non-empty and names only known inputs.
func (i Input) Valid() bool { return i != 0 && i < inputEnd }

// String renders the set as names joined by "|", e.g. "response|coordinator";
// the empty set is "none".
func (i Input) String() string {
	if i == 0 {
		return "none"
	}
	var parts []string
	for b := 0; b < len(inputNames); b++ {
		if i&(1<<b) != 0 {
			parts = append(parts, inputNames[b])
		}
	}
	if rest := i &^ (inputEnd - 1); rest != 0 {
		parts = append(parts, "unknown")
	}
	return strings.Join(parts, "|")
}
