package relay

import "testing"

// TestParkStateTable checks every cell of the table in doc.go.
func TestParkStateTable(t *testing.T) {
	type cell struct {
		next parkState
		act  parkAction
	}
	// rows: states; columns: evWake, evIdle, evStop, evEnd.
	table := map[parkState][4]cell{
		serving:        {{servingPending, actNone}, {parked, actRest}, {blocking, actNone}, {done, actNone}},
		servingPending: {{servingPending, actNone}, {serving, actAgain}, {blocking, actNone}, {done, actNone}},
		parked:         {{serving, actServe}, {parked, actNone}, {blocking, actWorker}, {done, actNone}},
		blocking:       {{blocking, actNone}, {blocking, actBlock}, {blocking, actNone}, {done, actNone}},
		done:           {{done, actNone}, {done, actNone}, {done, actNone}, {done, actNone}},
	}
	for s, row := range table {
		for ev, want := range row {
			next, act := s.on(parkEvent(ev))
			if next != want.next || act != want.act {
				t.Errorf("%v on event %d = %v, action %d; want %v, action %d", s, ev, next, act, want.next, want.act)
			}
		}
	}
}

// TestParkStateSequences runs the lives a direction goes through and checks that
// exactly one goroutine serves it at any time: a wake while served is remembered,
// never doubled, and a stop while parked starts the one worker that finishes it.
func TestParkStateSequences(t *testing.T) {
	tests := []struct {
		name   string
		events []parkEvent
		final  parkState
		// servers counts actServe and actWorker minus actRest: goroutines serving.
		servers int
	}{
		{"burst, then idle", []parkEvent{evWake, evIdle}, parked, 0},
		{"an edge during the burst is looked at", []parkEvent{evWake, evWake, evIdle, evIdle}, parked, 0},
		{"many edges during the burst: one more look", []parkEvent{evWake, evWake, evWake, evIdle, evIdle}, parked, 0},
		{"stopped while parked: one worker", []parkEvent{evWake, evIdle, evStop}, blocking, 1},
		{"stopped while served: the server goes on", []parkEvent{evWake, evStop, evIdle}, blocking, 1},
		{"edges after the stop are ignored", []parkEvent{evStop, evWake, evWake}, blocking, 1},
		{"ends while served", []parkEvent{evWake, evEnd, evWake}, done, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, servers := parked, 0
			for _, ev := range tt.events {
				var act parkAction
				s, act = s.on(ev)
				switch act {
				case actServe, actWorker:
					servers++
				case actRest:
					servers--
				}
				if servers < 0 || servers > 1 {
					t.Fatalf("after event %d: %d goroutines serve the direction", ev, servers)
				}
			}
			if s != tt.final || servers != tt.servers {
				t.Fatalf("ended %v with %d servers; want %v with %d", s, servers, tt.final, tt.servers)
			}
		})
	}
}
