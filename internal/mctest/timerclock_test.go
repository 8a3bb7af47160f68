package mctest

import (
	"testing"
	"time"
)

func TestTimerClockFiresDueTimersInOrderAtTheirTime(t *testing.T) {
	c := NewTimerClock(time.Time{})
	start := c.Now()
	var got []time.Duration
	rec := func() { got = append(got, c.Now().Sub(start)) }
	c.AfterFunc(3*time.Second, rec)
	c.AfterFunc(time.Second, func() {
		rec()
		c.AfterFunc(time.Second, rec) // due within the same Advance
	})
	stop := c.AfterFunc(2500*time.Millisecond, rec)
	late := c.AfterFunc(time.Minute, rec)
	if !stop() || stop() {
		t.Fatal("stop of a pending timer: want true once, then false")
	}
	c.Advance(5 * time.Second)
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("fired at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fired at %v, want %v", got, want)
		}
	}
	if c.Now().Sub(start) != 5*time.Second || c.Pending() != 1 {
		t.Fatalf("now +%v with %d pending, want +5s and 1", c.Now().Sub(start), c.Pending())
	}
	if !late() {
		t.Fatal("the late timer was not pending")
	}
}
