// Package control is the HTTP/JSON control API of a running broker
// (kreactor broker: a fakebroker cluster) or proxy (kreactor proxy: the
// recording proxy in front of a real cluster): any client's tests, in any
// language, install faults, read the request log and the cluster's group
// and topic state, produce records and reset, over HTTP on /v1.
//
// Faults are written in the vocabulary scenario files use (package
// fakebroker/vocab: the same kinds, arguments, API and error names and
// body selectors), as a JSON object:
//
//	POST /v1/faults
//	{"kind": "error", "key": "ConsumerGroupHeartbeat", "error": "FENCED_MEMBER_EPOCH",
//	 "where": {"member_epoch": 0}, "nth": 2, "node": 0, "expires": "30s"}
//
// Every route, its parameters and the JSON shapes it takes and returns are
// one table (routes.go), from which both the mux and the OpenAPI 3.1
// document (GET /v1/openapi.json) are built; a test checks every
// handler's actual answers against the document.
//
// Bad input is answered 4xx with a JSON Error naming the bad value (an
// unknown kind, API or error name, a selector field the API does not
// have, a node the cluster does not have, malformed JSON, a body over
// Config.MaxBody), and nothing is installed; the brokers keep serving
// their clients. An optional bearer token guards every route.
package control
