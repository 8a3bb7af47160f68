package plan

import "time"

// ticker is a series of instants every interval from 0 until end
// (exclusive); every warm before until, when warm is set.
type ticker struct {
	every, end, next time.Duration
	warm, until      time.Duration
}

func (t *ticker) due() bool { return t.next < t.end }
func (t *ticker) advance() {
	if t.warm > 0 && t.next < t.until {
		t.next = min(t.next+t.warm, t.until)
		return
	}
	t.next += t.every
}
