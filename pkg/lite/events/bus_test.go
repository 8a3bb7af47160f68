package events_test

import (
	"testing"

	"go.minekube.com/gate/pkg/lite/events"
)

// drain takes what is queued now.
func drain(s *events.Sub) []uint64 {
	var ids []uint64
	for range len(s.C()) {
		ids = append(ids, (<-s.C()).ID)
	}
	return ids
}

// A full queue drops and counts; the publisher never waits, and other
// subscribers still get everything.
func TestFullQueueDropsAndCounts(t *testing.T) {
	b := events.NewBus(8)
	slow, _ := b.Subscribe(events.AllTypes, 2, 0)
	fast, _ := b.Subscribe(events.AllTypes, 100, 0)
	defer slow.Close()
	defer fast.Close()
	for range 10 {
		b.Publish(events.Event{Type: events.Joined})
	}
	if got := drain(slow); len(got) != 2 || got[0] != 1 || got[1] != 2 || slow.Dropped() != 8 {
		t.Fatalf("slow got %v, dropped %d; want [1 2] and 8", got, slow.Dropped())
	}
	if got := drain(fast); len(got) != 10 || fast.Dropped() != 0 {
		t.Fatalf("fast got %v", got)
	}
}

// A mask keeps other types out of the queue (they take no slot).
func TestMaskFilters(t *testing.T) {
	b := events.NewBus(8)
	m, _ := events.ParseTypes([]string{"disconnect"})
	s, _ := b.Subscribe(m, 1, 0)
	defer s.Close()
	b.Publish(events.Event{Type: events.Joined})
	b.Publish(events.Event{Type: events.Ended})
	if got := drain(s); len(got) != 1 || got[0] != 2 || s.Dropped() != 0 {
		t.Fatalf("got %v, dropped %d", got, s.Dropped())
	}
}

// Resuming after an ID replays the kept events after it; what the ring no longer
// holds is reported as missed; an ID from an earlier process (a restart) replays
// all kept.
func TestResumeFromTheRing(t *testing.T) {
	b := events.NewBus(4)
	for range 10 {
		b.Publish(events.Event{Type: events.Joined})
	}
	for _, tc := range []struct {
		after  uint64
		want   []uint64
		missed uint64
	}{
		{8, []uint64{9, 10}, 0},
		{10, nil, 0},
		{3, []uint64{7, 8, 9, 10}, 3},
		{99, []uint64{7, 8, 9, 10}, 6}, // this process's events 1-6 are gone
	} {
		s, missed := b.Subscribe(events.AllTypes, 16, tc.after)
		got := drain(s)
		s.Close()
		if len(got) != len(tc.want) || missed != tc.missed || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("after %d: got %v missed %d, want %v missed %d", tc.after, got, missed, tc.want, tc.missed)
		}
	}
}

func TestParseTypes(t *testing.T) {
	if _, err := events.ParseTypes([]string{"joined", "nope"}); err == nil {
		t.Fatal("unknown name accepted")
	}
	m, err := events.ParseTypes([]string{"connect"})
	if err != nil || !m.Has(events.Joined) || !m.Has(events.Refused) || m.Has(events.Ended) {
		t.Fatalf("connect = %b, %v", m, err)
	}
	if m, _ := events.ParseTypes(nil); m != events.AllTypes || !m.Has(events.Wake) {
		t.Fatalf("empty = %b", m)
	}
}

func TestReceiverNameHasNoSecret(t *testing.T) {
	if got := events.Receiver("https://user:pw@hooks.example.com:8443/path/s3cret?token=x"); got != "https://hooks.example.com:8443" {
		t.Fatalf("Receiver = %q", got)
	}
}
