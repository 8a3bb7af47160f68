package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Event is one message of GET /events.
type Event struct {
	Type   string `json:"Type"`
	Action string `json:"Action"`
	Actor  struct {
		ID         string            `json:"ID"`
		Attributes map[string]string `json:"Attributes"`
	} `json:"Actor"`
}

// Events opens the event stream with the filters (and the query's since and
// until, when set). It returns once the daemon has answered, so an event that
// happens after Events returns is never missed; the caller reads with Next
// and closes the stream.
func (c *Client) Events(ctx context.Context, query string, f Filters) (*EventStream, error) {
	path := "/events"
	if query != "" {
		path += "?" + query
	}
	resp, err := c.Get(ctx, path, f)
	if err != nil {
		return nil, err
	}
	return &EventStream{body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

// EventStream is an open event stream.
type EventStream struct {
	body io.ReadCloser
	dec  *json.Decoder
}

// Next blocks for the next event. The stream's end is an error wrapping
// io.EOF: the daemon ends a stream only at its until, or when it goes away.
func (s *EventStream) Next() (Event, error) {
	var ev Event
	if err := s.dec.Decode(&ev); err != nil {
		return ev, fmt.Errorf("read docker events: %w", err)
	}
	return ev, nil
}

// Close ends the stream; a Next blocked on it returns.
func (s *EventStream) Close() { _ = s.body.Close() }
