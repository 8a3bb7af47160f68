package admin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/operator"
)

// Paths of the operator layer: GET shows it; POST PathOperator+"/KIND" sets an
// entry, DELETE PathOperator+"/KIND?target=T" removes one (kind: maintenance,
// drain, ban, override).
const PathOperator = "/api/v1/operator"

// HeaderBy names the operator behind a write (the audit line's "by"); the token
// says only that the writer holds it.
const HeaderBy = "X-Gate-Operator"

// maxWriteBody caps a write's body: the largest entry (a favicon) and room.
const maxWriteBody = operator.MaxFavicon + 8<<10

// Operator is the operator layer the API writes (*operator.Hub).
type Operator interface {
	Layer() *operator.Layer
	Write(ctx context.Context, c operator.Change, by string) (operator.Entry, error)
}

// Layer is /api/v1/operator: the layer above the config file, as its own layer.
type Layer struct {
	Layer string `json:"layer"` // always "operator"
	// Store says where the layer lives: "file PATH" or "configmap NS/NAME".
	Store   string           `json:"store"`
	Entries []operator.Entry `json:"entries"`
}

// WriteRequest is a write's body: an entry's fields, and For as a ban's
// duration from now (instead of Expires).
type WriteRequest struct {
	operator.Entry
	For string `json:"for,omitempty"`
}

func (s *Server) routeOperator() {
	if s.o.Operator == nil {
		return
	}
	s.mux.Handle("GET "+PathOperator, s.auth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// A ban that ended is gone from the store with its next write; it is not shown meanwhile.
		entries := s.o.Operator.Layer().State().Pruned(time.Now()).Sorted()
		writeJSON(w, Layer{Layer: "operator", Store: s.o.OperatorStore, Entries: entries})
	})))
	s.mux.Handle("POST "+PathOperator+"/{kind}", s.writer(s.operatorSet))
	s.mux.Handle("DELETE "+PathOperator+"/{kind}", s.writer(s.operatorDelete))
}

// writer guards a write: same-site only (sameSite), a token configured and
// presented (auth), then the handler.
func (s *Server) writer(h http.HandlerFunc) http.Handler {
	return s.sameSite(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token.Load() == nil {
			writeText(w, http.StatusForbidden, "admin API: writes need a token (set api.token or api.tokenFile)")
			return
		}
		s.auth(h).ServeHTTP(w, r)
	}))
}

func (s *Server) operatorSet(w http.ResponseWriter, r *http.Request) {
	var req WriteRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxWriteBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		writeText(w, http.StatusBadRequest, "operator write: body: "+clipErr(err))
		return
	}
	e := req.Entry
	e.Kind = operator.Kind(r.PathValue("kind"))
	if req.For != "" {
		d, err := time.ParseDuration(req.For)
		if err != nil || d <= 0 {
			writeText(w, http.StatusBadRequest, "operator write: for: want a positive duration such as 30m or 24h")
			return
		}
		at := time.Now().Add(d).UTC()
		e.Expires = &at
	}
	if e.Target == "" && (e.Kind == operator.Maintenance || e.Kind == operator.Override) {
		e.Target = operator.AllRoutes
	}
	s.write(w, r, operator.Change{Entry: e})
}

func (s *Server) operatorDelete(w http.ResponseWriter, r *http.Request) {
	e := operator.Entry{Kind: operator.Kind(r.PathValue("kind")), Target: r.URL.Query().Get("target")}
	if e.Target == "" && (e.Kind == operator.Maintenance || e.Kind == operator.Override) {
		e.Target = operator.AllRoutes
	}
	s.write(w, r, operator.Change{Entry: e, Delete: true})
}

// write stores c and logs one audit line: who (the token's holder, named by
// HeaderBy, and the peer), what, and the outcome.
func (s *Server) write(w http.ResponseWriter, r *http.Request, c operator.Change) {
	by := clipBy(r.Header.Get(HeaderBy))
	op := "set"
	if c.Delete {
		op = "delete"
	}
	e, err := s.o.Operator.Write(r.Context(), c, by)
	kv := []any{"by", by, "peer", r.RemoteAddr, "op", op, "kind", string(c.Entry.Kind)}
	if err != nil {
		s.o.Log.Info("operator write refused", append(kv, "target", clipBy(c.Entry.Target), "err", clipErr(err))...)
		code := http.StatusInternalServerError
		if errors.Is(err, operator.ErrInvalid) {
			code = http.StatusBadRequest
		} else if errors.Is(err, operator.ErrTooLarge) {
			code = http.StatusRequestEntityTooLarge
		}
		writeText(w, code, "operator write: "+clipErr(err))
		return
	}
	s.o.Log.Info("operator write", append(kv, "target", e.Target, "fields", fields(e))...)
	writeJSON(w, e)
}

// fields lists what an entry sets, for the audit line (a favicon by its size).
func fields(e operator.Entry) map[string]any {
	m := map[string]any{}
	set := func(k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	set("text", e.Text, e.Text != "")
	set("bypass", e.Bypass, len(e.Bypass) > 0)
	set("motd", e.MOTD, e.MOTD != "")
	set("faviconBytes", len(e.Favicon), e.Favicon != "")
	set("version", e.Version, e.Version != "")
	set("maxPlayers", e.MaxPlayers, e.MaxPlayers != nil)
	set("expires", e.Expires, e.Expires != nil)
	return m
}

// clipBy bounds a client-supplied name for logs: printable, at most MaxBy bytes.
func clipBy(s string) string {
	out := make([]rune, 0, len(s))
	for _, c := range s {
		if len(string(out)) >= operator.MaxBy {
			break
		}
		if c >= 0x20 && c != 0x7f {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return string(out)
}

// clipErr is an error for a response or log line, bounded (it may quote input).
func clipErr(err error) string {
	msg := err.Error()
	if len(msg) > 1024 {
		msg = msg[:1024] + "..."
	}
	return strings.ToValidUTF8(msg, "?")
}

// Operator fetches the operator layer.
func (c *Client) Operator(ctx context.Context) (Layer, error) {
	var out Layer
	return out, c.get(ctx, PathOperator, &out)
}

// SetOperator writes an entry of kind (req.Kind is ignored) and returns it as stored.
func (c *Client) SetOperator(ctx context.Context, kind operator.Kind, req WriteRequest) (operator.Entry, error) {
	var out operator.Entry
	return out, c.do(ctx, http.MethodPost, PathOperator+"/"+string(kind), req, &out)
}

// DeleteOperator removes the entry of kind for target.
func (c *Client) DeleteOperator(ctx context.Context, kind operator.Kind, target string) error {
	return c.do(ctx, http.MethodDelete, PathOperator+"/"+string(kind)+"?target="+url.QueryEscape(target), nil, nil)
}
