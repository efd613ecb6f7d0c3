package control

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// MaxProduce is the most records one POST /v1/produce writes.
const MaxProduce = 1_000_000

// produceTimeout bounds one POST /v1/produce.
const produceTimeout = 60 * time.Second

// TopicRequest is the body of POST /v1/topics.
type TopicRequest struct {
	Name       string `json:"name" doc:"the topic's name"`
	Partitions int32  `json:"partitions" doc:"its partition count, 1..10000"`
}

// ProduceRequest is the body of POST /v1/produce.
type ProduceRequest struct {
	Topic string `json:"topic"`
	Count int    `json:"count" doc:"records to write, 1..1000000"`
	Key   string `json:"key,omitempty" doc:"every record's key (absent: none); %d is replaced by the record's index"`
	Value string `json:"value,omitempty" doc:"every record's value (absent: record-<i>); %d is replaced by the record's index"`
}

// ProduceResult is the answer of POST /v1/produce.
type ProduceResult struct {
	Topic      string         `json:"topic"`
	Count      int            `json:"count"`
	Partitions map[string]int `json:"partitions" doc:"records written per partition"`
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request) error {
	g, err := s.cfg.Backend.Group(r.Context(), r.PathValue("group"))
	if err != nil {
		return &Error{Status: http.StatusBadGateway, Field: "group", Value: r.PathValue("group"), Msg: err.Error()}
	}
	writeJSON(w, 200, g)
	return nil
}

func (s *Server) getTopics(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.cfg.Backend.Topics(r.Context())
	if err != nil {
		return &Error{Status: http.StatusBadGateway, Msg: err.Error()}
	}
	writeJSON(w, 200, ts)
	return nil
}

func (s *Server) postTopic(w http.ResponseWriter, r *http.Request) error {
	var req TopicRequest
	if _, err := decodeBody(r, &req, jsonKeys(TopicRequest{})); err != nil {
		return err
	}
	if err := vocab.CheckTopicName(req.Name); err != nil {
		return badf("name", req.Name, "%v", err)
	}
	if req.Partitions < 1 || req.Partitions > 10_000 {
		return badf("partitions", req.Partitions, "want 1..10000")
	}
	if err := s.cfg.Backend.CreateTopic(r.Context(), req.Name, req.Partitions); err != nil {
		return badf("name", req.Name, "create: %v", err)
	}
	ts, err := s.cfg.Backend.Topics(r.Context())
	if err != nil {
		return &Error{Status: http.StatusBadGateway, Msg: err.Error()}
	}
	for _, t := range ts {
		if t.Name == req.Name {
			writeJSON(w, http.StatusCreated, t)
			return nil
		}
	}
	writeJSON(w, http.StatusCreated, Topic{Name: req.Name, Partitions: []Partition{}})
	return nil
}

func (s *Server) postProduce(w http.ResponseWriter, r *http.Request) error {
	var req ProduceRequest
	if _, err := decodeBody(r, &req, jsonKeys(ProduceRequest{})); err != nil {
		return err
	}
	if req.Topic == "" {
		return badf("topic", "", "required")
	}
	if req.Count < 1 || req.Count > MaxProduce {
		return badf("count", req.Count, "want 1..%d", MaxProduce)
	}
	ctx, cancel := context.WithTimeout(r.Context(), produceTimeout)
	defer cancel()
	fn := func(i int) (key, value []byte) {
		if req.Key != "" {
			key = []byte(strings.ReplaceAll(req.Key, "%d", fmt.Sprint(i)))
		}
		if req.Value != "" {
			value = []byte(strings.ReplaceAll(req.Value, "%d", fmt.Sprint(i)))
		} else {
			value = []byte(fmt.Sprintf("record-%d", i))
		}
		return key, value
	}
	parts, err := s.cfg.Backend.Produce(ctx, req.Topic, req.Count, fn)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return &Error{Status: http.StatusBadGateway, Field: "topic", Value: req.Topic, Msg: "produce: " + err.Error()}
	}
	out := ProduceResult{Topic: req.Topic, Count: req.Count, Partitions: map[string]int{}}
	for p, n := range parts {
		out.Partitions[fmt.Sprint(p)] = n
	}
	writeJSON(w, 200, out)
	return nil
}
