package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// param is one query or path parameter of a route.
type param struct {
	Name, In, Type, Doc string // In: "query" or "path"; Type: integer, string, boolean
	Required            bool
}

// route is one endpoint: the mux pattern, the OpenAPI document and the
// handler are all read from it.
type route struct {
	Method, Path string // Path is a net/http pattern: /v1/faults/{id}
	Summary      string
	Params       []param
	Body         any   // zero value of the JSON body's type; nil: none
	Resp         any   // zero value of the success answer's type
	Status       int   // success status
	NDJSON       bool  // the answer is a stream of Resp, one JSON object a line
	Errors       []int // 4xx/5xx statuses the route answers (with Error)
	h            func(s *Server, w http.ResponseWriter, r *http.Request) error
}

func (rt route) handle(s *Server, w http.ResponseWriter, r *http.Request) {
	if err := rt.h(s, w, r); err != nil {
		writeErr(w, err)
	}
}

var routes []route

func init() {
	routes = []route{
		{Method: "GET", Path: "/v1", Summary: "what is being served: mode, bootstrap addresses, brokers", Resp: Info{}, Status: 200, h: (*Server).info},
		{Method: "GET", Path: "/v1/openapi.json", Summary: "this document (OpenAPI 3.1)", Resp: map[string]any{}, Status: 200, h: (*Server).openapi},
		{Method: "GET", Path: "/v1/vocabulary", Summary: "the fault kinds and the arguments each takes (the scenario files' vocabulary)", Resp: []KindDoc{}, Status: 200, h: (*Server).vocabulary},
		{Method: "POST", Path: "/v1/faults", Summary: "install a fault", Body: FaultRequest{}, Resp: FaultState{}, Status: 201, Errors: []int{400, 413, 501}, h: (*Server).postFault},
		{Method: "GET", Path: "/v1/faults", Summary: "the faults installed since the last reset, healed ones too", Resp: []FaultState{}, Status: 200, h: (*Server).listFaults},
		{Method: "GET", Path: "/v1/faults/{id}", Summary: "one fault", Params: []param{{Name: "id", In: "path", Type: "string", Doc: "the fault's id (f1, f2, ...)", Required: true}}, Resp: FaultState{}, Status: 200, Errors: []int{404}, h: (*Server).getFault},
		{Method: "DELETE", Path: "/v1/faults/{id}", Summary: "heal one fault", Params: []param{{Name: "id", In: "path", Type: "string", Doc: "the fault's id", Required: true}}, Resp: FaultState{}, Status: 200, Errors: []int{404}, h: (*Server).deleteFault},
		{Method: "DELETE", Path: "/v1/faults", Summary: "heal every fault", Resp: Healed{}, Status: 200, h: (*Server).deleteFaults},
		{Method: "GET", Path: "/v1/log", Summary: "the request log, oldest first, as NDJSON (paged with after and limit; follow streams new requests until the client goes)", Params: logParams, Resp: LogEntry{}, Status: 200, NDJSON: true, Errors: []int{400}, h: (*Server).getLog},
		{Method: "GET", Path: "/v1/log/stats", Summary: "how many requests were recorded, kept and dropped", Resp: LogStats{}, Status: 200, h: (*Server).logStats},
		{Method: "GET", Path: "/v1/groups/{group}", Summary: "a consumer or share group as its coordinator sees it", Params: []param{{Name: "group", In: "path", Type: "string", Doc: "the group id", Required: true}}, Resp: Group{}, Status: 200, Errors: []int{502}, h: (*Server).getGroup},
		{Method: "GET", Path: "/v1/topics", Summary: "the cluster's topics", Resp: []Topic{}, Status: 200, Errors: []int{502}, h: (*Server).getTopics},
		{Method: "POST", Path: "/v1/topics", Summary: "create a topic", Body: TopicRequest{}, Resp: Topic{}, Status: 201, Errors: []int{400, 413}, h: (*Server).postTopic},
		{Method: "POST", Path: "/v1/produce", Summary: "produce records (record i to partition i mod P) and wait for their acknowledgement", Body: ProduceRequest{}, Resp: ProduceResult{}, Status: 200, Errors: []int{400, 404, 413, 502}, h: (*Server).postProduce},
		{Method: "POST", Path: "/v1/reset", Summary: "heal every fault and empty the request log (its seq numbers go on, never restart)", Resp: Healed{}, Status: 200, h: (*Server).reset},
		{Method: "POST", Path: "/v1/verdict", Summary: "check the scenario file's broker-side expectations against the log (kreactor broker -scenario FILE)", Resp: Verdict{}, Status: 200, Errors: []int{404}, h: (*Server).verdict},
	}
}

// Info is the answer of GET /v1.
type Info struct {
	Mode      string   `json:"mode" doc:"broker (a fake cluster) or proxy (in front of a real one)"`
	Bootstrap []string `json:"bootstrap" doc:"bootstrap addresses for clients (host:port)"`
	Brokers   []int32  `json:"brokers" doc:"node ids"`
	Control   string   `json:"control,omitempty" doc:"this API's URL"`
	Scenario  bool     `json:"scenario" doc:"a scenario file drives the broker (POST /v1/verdict checks it)"`
}

// Healed is the answer of a reset: how many faults were healed.
type Healed struct {
	Healed int `json:"healed"`
}

func (s *Server) info(w http.ResponseWriter, _ *http.Request) error {
	b := s.cfg.Backend
	writeJSON(w, 200, Info{Mode: b.Mode(), Bootstrap: b.Addrs(), Brokers: b.Nodes(), Control: s.cfg.ControlURL, Scenario: s.cfg.Verdict != nil})
	return nil
}

func (s *Server) openapi(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, 200, OpenAPI())
	return nil
}

func (s *Server) verdict(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Verdict == nil {
		return &Error{Status: 404, Field: "scenario", Msg: "no scenario file drives this broker (start it with kreactor broker -scenario FILE)"}
	}
	v, err := s.cfg.Verdict(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, 200, v)
	return nil
}

// decodeBody decodes r's JSON body into dst (a pointer to a struct),
// refusing unknown fields, trailing data and an empty body, and returns
// the top-level keys given. Errors are 400 (413 over the limit) naming the
// field or the offset.
func decodeBody(r *http.Request, dst any, known []string) (map[string]json.RawMessage, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(mbe.Limit, 0)
		}
		return nil, badf("body", nil, "reading the body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, badf("body", "", "want a JSON object, got an empty body")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, jsonErr(data, err)
	}
	for k := range keys {
		if !contains(known, k) {
			return nil, badf(k, json.RawMessage(keys[k]), "unknown field (known: %s)", strings.Join(known, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return nil, jsonErr(data, err)
	}
	return keys, nil
}

// jsonErr makes a JSON decoding error a 400 naming the field or offset.
func jsonErr(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return badf("body", nil, "want a JSON object, got JSON %s", te.Value)
		}
		return badf(te.Field, nil, "want %s, got JSON %s", te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badf("body", snippet(data, se.Offset), "malformed JSON at byte %d: %v", se.Offset, err)
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return badf("body", nil, "malformed JSON: %v", err)
}

// snippet is up to 40 bytes of data around off.
func snippet(data []byte, off int64) string {
	lo, hi := max(0, int(off)-20), min(len(data), int(off)+20)
	return string(data[lo:hi])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonKeys lists the json names of struct type v's fields.
func jsonKeys(v any) []string {
	var out []string
	for _, f := range fieldsOf(v) {
		out = append(out, f.name)
	}
	return out
}
