package reactor

// Observation is one entry of a core's ordered input: an application event
// (built with Event) or a request completion (built with Completion). A
// Core applies it with Apply; a driver (Loop, the baseline) queues it in its
// inbox first. The zero Observation is invalid: Apply panics on it.
type Observation struct {
	name  string
	apply func(tx *Tx) // application event
	req   *Request     // completion
	resp  any
	err   error
}

// Event returns the observation of an application event named name (for
// traces): apply runs once, on the state owner, with a Tx whose Version is
// the new state version. apply must not be nil.
func Event(name string, apply func(tx *Tx)) Observation {
	if apply == nil {
		panic("reactor: Event " + name + " with a nil apply")
	}
	return Observation{name: name, apply: apply}
}

// Completion returns the observation of req's completion with resp or err:
// applying it calls req.OnComplete with a Tx whose RequestVersion is
// req.Version (invariant 6). req must not be nil and must have OnComplete.
func Completion(req *Request, resp any, err error) Observation {
	if req == nil || req.OnComplete == nil {
		panic("reactor: Completion of a nil request or one without OnComplete")
	}
	return Observation{name: req.Manager, req: req, resp: resp, err: err}
}

// Name is the event's name, or the name of the manager whose request
// completed.
func (o Observation) Name() string { return o.name }

// IsCompletion reports whether o is a request completion.
func (o Observation) IsCompletion() bool { return o.req != nil }
