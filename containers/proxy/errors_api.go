package proxy

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// match selects the entities of one request an error fault answers.
type match struct {
	topic   string // "" any topic
	group   string // "" any group
	byTopic bool   // the fault selects topic partitions (a Topic filter is set)
	all     bool   // select every entity at the byTopic level (for counting)
	code    int16
}

// everything is m widened to every entity at the same level.
func (m match) everything() match { return match{byTopic: m.byTopic, all: true, code: m.code} }

func (m match) topicOK(name string) bool { return m.all || m.topic == "" || m.topic == name }
func (m match) groupOK(g string) bool    { return m.all || m.group == "" || m.group == g }
func (m match) noGroup() bool            { return m.all || m.group == "" }

// wholeGroup reports whether m selects group g as one entity (no topic
// filter).
func (m match) wholeGroup(g string) bool { return !m.byTopic && m.groupOK(g) }

// errAPI is how the proxy answers one API's requests with an error code, the
// way a broker would.
type errAPI struct {
	topics, groups bool // whether Topic / Group filters make sense
	// rewriteOnly: requests are always forwarded and the broker's answer
	// rewritten (read-only APIs whose answer carries what the client needs
	// besides the error, such as Metadata's brokers).
	rewriteOnly bool
	// skeleton returns an empty response to req (same version) with one
	// entry per entity req names and no error.
	skeleton func(p *Proxy, req kmsg.Request) kmsg.Response
	// set sets m.code on the entities of resp (a response to req) that m
	// selects, clearing their data, and returns how many it set.
	set func(p *Proxy, req kmsg.Request, resp kmsg.Response, m match) int
}

// count returns how many entities of req m selects.
func (a *errAPI) count(p *Proxy, req kmsg.Request, m match) int {
	return a.set(p, req, a.skeleton(p, req), m)
}

// errAPIs are the per-API helpers. Entities and where the code goes:
//
//   - FindCoordinator: v0-3 the top-level ErrorCode (NodeID -1, Host "",
//     Port -1); v4+ each Coordinators[] entry, one per key. Group matches
//     keys of coordinator type group only.
//   - ConsumerGroupHeartbeat, ShareGroupHeartbeat: the top-level ErrorCode.
//   - OffsetCommit: each partition's ErrorCode.
//   - OffsetFetch: without a Topic filter the group's code (v0-1 each
//     partition, v2-7 the top-level ErrorCode and each partition, v8+ the
//     group's ErrorCode, its topics cleared); with one, that topic's
//     partitions (Offset -1).
//   - Metadata (always forwarded): each topic's ErrorCode, partitions
//     cleared; the brokers stay.
//   - Fetch (always forwarded, MaxWaitMillis forced to 0): each partition
//     the request names or its fetch session holds, records cleared,
//     HighWatermark / LastStableOffset / LogStartOffset -1; session-level
//     codes (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH,
//     FETCH_SESSION_TOPIC_ID_ERROR) go to the top-level ErrorCode instead,
//     topics cleared.
//   - ShareFetch, ShareAcknowledge: without a Topic filter the top-level
//     ErrorCode (topics cleared); with one, that topic's partitions.
//   - ListOffsets: each partition's ErrorCode (Timestamp, Offset,
//     LeaderEpoch -1).
//   - any other API with a top-level ErrorCode field: that field (see
//     genericAPI); Topic and Group filters are rejected.
var errAPIs = map[kmsg.Key]*errAPI{
	kmsg.FindCoordinator:        {groups: true, skeleton: findCoordinatorSkeleton, set: findCoordinatorSet},
	kmsg.ConsumerGroupHeartbeat: {groups: true, skeleton: newResponse, set: consumerHeartbeatSet},
	kmsg.ShareGroupHeartbeat:    {groups: true, skeleton: newResponse, set: shareHeartbeatSet},
	kmsg.OffsetCommit:           {groups: true, topics: true, skeleton: offsetCommitSkeleton, set: offsetCommitSet},
	kmsg.OffsetFetch:            {groups: true, topics: true, skeleton: offsetFetchSkeleton, set: offsetFetchSet},
	kmsg.Metadata:               {topics: true, rewriteOnly: true, skeleton: newResponse, set: metadataSet},
	kmsg.Fetch:                  {topics: true, rewriteOnly: true, skeleton: newResponse}, // see Proxy.setFetch
	kmsg.ShareFetch:             {groups: true, topics: true, skeleton: shareFetchSkeleton, set: shareFetchSet},
	kmsg.ShareAcknowledge:       {groups: true, topics: true, skeleton: shareAckSkeleton, set: shareAckSet},
	kmsg.ListOffsets:            {topics: true, skeleton: listOffsetsSkeleton, set: listOffsetsSet},
}

// genericAPI answers any API whose response has a top-level ErrorCode.
var genericAPI = &errAPI{skeleton: newResponse, set: genericSet}

// apiFor returns key's helper, the generic one if key's response has a
// top-level ErrorCode, or nil.
func apiFor(key kmsg.Key) *errAPI {
	if a, ok := errAPIs[key]; ok {
		return a
	}
	req := kmsg.RequestForKey(int16(key))
	if req == nil {
		return nil
	}
	if _, ok := topLevelCode(req.ResponseKind()); !ok {
		return nil
	}
	return genericAPI
}

// newResponse returns an empty response to req at req's version.
func newResponse(_ *Proxy, req kmsg.Request) kmsg.Response {
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	return resp
}

// topLevelCode returns resp's top-level ErrorCode field, if it has one.
func topLevelCode(resp kmsg.Response) (reflect.Value, bool) {
	v := reflect.ValueOf(resp)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return reflect.Value{}, false
	}
	code := v.Elem().FieldByName("ErrorCode")
	if !code.IsValid() || code.Kind() != reflect.Int16 {
		return reflect.Value{}, false
	}
	return code, true
}

func genericSet(_ *Proxy, _ kmsg.Request, resp kmsg.Response, m match) int {
	if m.byTopic || !m.noGroup() {
		return 0
	}
	code, ok := topLevelCode(resp)
	if !ok {
		return 0
	}
	code.SetInt(int64(m.code))
	return 1
}

// applyErrors decides what the error rules selecting rq do: answer it
// locally (s.local) when the first rule with a selected entity selects all
// of them, else have the broker's answer rewritten (s.errRules). A faulted
// Fetch is forwarded with MaxWaitMillis 0, so the broker answers at once as
// it would for an erroring partition.
func (p *Proxy) applyErrors(node int32, rq *request, s *slot, rules []*rule) {
	var cands []*rule
	for _, r := range rules {
		if r.kind == ruleError && r.selects(node, rq) {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return
	}
	if req, ok := rq.Body.(*kmsg.FetchRequest); ok {
		parts := p.sessions.Parts(node, req)
		for _, r := range cands {
			if p.setFetch(&kmsg.FetchResponse{Version: req.Version}, parts, r.match()) > 0 {
				s.errRules = append(s.errRules, r)
			}
		}
		if len(s.errRules) > 0 {
			s.fetchParts = parts
			if req.MaxWaitMillis != 0 {
				cp := *req // the original may be held by an observer
				cp.MaxWaitMillis = 0
				rq.Raw = rq.WithBody(&cp)
			}
		}
		return
	}
	api := apiFor(rq.Key)
	if api.rewriteOnly {
		s.errRules = cands
		return
	}
	for _, r := range cands {
		m := r.match()
		n := api.count(p, rq.Body, m)
		if n == 0 {
			continue
		}
		if len(s.errRules) == 0 && n == api.count(p, rq.Body, m.everything()) {
			if !r.f.hit() {
				continue
			}
			resp := api.skeleton(p, rq.Body)
			api.set(p, rq.Body, resp, m)
			s.local = rq.Response(resp)
			return
		}
		s.errRules = append(s.errRules, r)
	}
}

// applyResponseErrors sets s.errRules' errors on resp, the broker's answer,
// and reports whether it changed anything. Rules apply last to first so the
// first installed wins on an entity several select.
func (p *Proxy) applyResponseErrors(s *slot, resp kmsg.Response) bool {
	changed := false
	for i := len(s.errRules) - 1; i >= 0; i-- {
		r := s.errRules[i]
		if r.f.isHealed() {
			continue
		}
		var n int
		if fr, ok := resp.(*kmsg.FetchResponse); ok {
			n = p.setFetch(fr, s.fetchParts, r.match())
		} else {
			n = apiFor(s.rq.Key).set(p, s.rq.Body, resp, r.match())
		}
		if n > 0 {
			r.f.hit()
			changed = true
		}
	}
	return changed
}
