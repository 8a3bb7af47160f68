package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// Result is where the simulated players went.
type Result struct {
	Strategy strategy.Name `json:"strategy"`
	Setup
	Events []Event `json:"events,omitempty"`
	// Backends are in config order.
	Backends []BackendResult `json:"backends"`
	// Placed players got a session; TurnedAway were refused by every
	// backend they reached (full) within their budget; Unplaced found no
	// backend that answered. Refusals counts the Login Disconnects of full
	// backends, each of which sent its player on to the next backend.
	Placed     int `json:"placed"`
	TurnedAway int `json:"turnedAway"`
	Unplaced   int `json:"unplaced"`
	Refusals   int `json:"refusals"`
	// Returns counts the placed players who had been placed before
	// (Options.Population); Home, those of them placed on the backend of
	// their previous session.
	Returns int `json:"returns,omitempty"`
	Home    int `json:"home,omitempty"`
	// FailedDials were made by players (probes are not counted) and cost
	// them FailedDialTime in total.
	FailedDials    int      `json:"failedDials"`
	FailedDialTime Duration `json:"failedDialTime"`
	// Imbalance is the busiest live backend's players over the mean of the
	// live backends: 1.00 is perfectly even.
	Imbalance float64 `json:"imbalance"`
	// Metrics are the quality figures of the run.
	Metrics Metrics `json:"metrics"`
	// Timeline splits the run into ten equal spans of connections.
	Timeline []Bucket `json:"timeline"`
}

// Setup is what a run was given, as every output repeats it: the seed, the
// players and their pace, the replicas.
type Setup struct {
	Seed     uint64   `json:"seed"`
	Count    int      `json:"count"`
	Replicas int      `json:"replicas"`
	Arrival  Duration `json:"arrival"`
	Session  Duration `json:"session"`
}

func setupOf(o Options) Setup {
	return Setup{Seed: o.Seed, Count: o.Count, Replicas: o.Replicas, Arrival: Duration(o.Arrival), Session: Duration(o.Session)}
}

// BackendResult is one backend's share of the plan.
type BackendResult struct {
	Addr     string   `json:"addr"`
	Latency  Duration `json:"latency"`
	Capacity int      `json:"capacity,omitempty"`
	Dead     bool     `json:"dead,omitempty"`
	// Players placed on it, and their share (percent) of all placed.
	Players int     `json:"players"`
	Share   float64 `json:"share"`
	// Peak is the most players on it at once; Live, those on it when the
	// last player arrived.
	Peak int `json:"peak"`
	Live int `json:"live"`
	// Refused counts the logins it refused, full.
	Refused     int `json:"refused"`
	FailedDials int `json:"failedDials"`
	Probes      int `json:"probes"`
	// Measured is the manager's latency estimate at the end, if any.
	Measured Duration `json:"measured,omitempty"`
	// Health is the manager's verdict at the end.
	Health string `json:"health"`
}

// Bucket counts the players placed on each backend (config order) by the
// connections From..To (1-based, inclusive).
type Bucket struct {
	From    int   `json:"from"`
	To      int   `json:"to"`
	Players []int `json:"players"`
}

// Duration prints as Go duration text ("20ms") in JSON.
type Duration time.Duration

// MarshalJSON encodes d as a string such as "1m30s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(time.Duration(d).String())), nil
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error { return writeJSON(w, r, "plan") }

// writeJSON is the one JSON form of every simulator output.
func writeJSON(w io.Writer, v any, what string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s json: %w", what, err)
	}
	return nil
}

// WriteTable writes r as aligned text: a summary line, a row per backend,
// the totals and the timeline.
func (r *Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "plan: %s, %d players, one every %v, sessions ~%v, seed %d\n\n",
		r.Strategy, r.Count, time.Duration(r.Arrival), time.Duration(r.Session), r.Seed)
	fmt.Fprintln(tw, "BACKEND\tLATENCY\tCAPACITY\tPLAYERS\tSHARE\tPEAK\tREFUSED\tFAILED DIALS\tPROBES\tMEASURED\tHEALTH")
	for _, b := range r.Backends {
		capacity, measured, latency := "-", "-", time.Duration(b.Latency).String()
		if b.Capacity > 0 {
			capacity = strconv.Itoa(b.Capacity)
		}
		if b.Measured > 0 {
			measured = time.Duration(b.Measured).Round(100 * time.Microsecond).String()
		}
		if b.Dead {
			latency = "dead"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%s\t%s\n", b.Addr, latency, capacity,
			b.Players, b.Share, b.Peak, b.Refused, b.FailedDials, b.Probes, measured, b.Health)
	}
	fmt.Fprintf(tw, "\nplaced %d, turned away %d (%d refusals), unplaced %d, failed dials %d (%v waited), imbalance %.2f\n\n",
		r.Placed, r.TurnedAway, r.Refusals, r.Unplaced, r.FailedDials, time.Duration(r.FailedDialTime), r.Imbalance)
	head := []string{"CONNECTIONS"}
	for _, b := range r.Backends {
		head = append(head, b.Addr)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, bk := range r.Timeline {
		countRow(tw, fmt.Sprintf("%d-%d", bk.From, bk.To), bk.Players)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write plan table: %w", err)
	}
	return nil
}

// countRow writes one tab-separated row: label, then a count per backend.
func countRow(w io.Writer, label string, counts []int) {
	row := []string{label}
	for _, n := range counts {
		row = append(row, strconv.Itoa(n))
	}
	fmt.Fprintln(w, strings.Join(row, "\t"))
}
