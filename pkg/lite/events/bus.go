package events

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRing is how many recent events a Bus keeps for resuming streams.
const DefaultRing = 1024

// Bus numbers events and hands each to every subscriber whose mask has its type.
// A subscriber's queue is bounded: when it is full the event is dropped for that
// subscriber and counted, so a slow receiver never slows a connection. It keeps the
// latest events in a ring, so a stream that reconnects can resume (Subscribe's
// after).
type Bus struct {
	now func() time.Time

	mu   sync.Mutex
	last uint64  // the latest ID given
	ring []Event // the latest events; ring[(id-1)%len] holds id
	subs []*Sub  // replaced, never changed in place
}

// NewBus returns a bus keeping the latest ring events (DefaultRing when 0).
func NewBus(ring int) *Bus {
	if ring <= 0 {
		ring = DefaultRing
	}
	return &Bus{now: time.Now, ring: make([]Event, ring)}
}

// Publish numbers e, keeps it and offers it to every subscriber without waiting.
// A zero Time is now.
func (b *Bus) Publish(e Event) {
	if e.Time.IsZero() {
		e.Time = b.now()
	}
	b.mu.Lock()
	b.last++
	e.ID = b.last
	b.ring[(e.ID-1)%uint64(len(b.ring))] = e
	for _, s := range b.subs {
		s.offer(&e)
	}
	b.mu.Unlock()
}

// Sub is one subscriber: its queue, its mask and what it missed.
type Sub struct {
	b       *Bus
	mask    Mask
	c       chan Event
	dropped atomic.Uint64
	closed  bool // under b.mu
}

func (s *Sub) offer(e *Event) {
	if !s.mask.Has(e.Type) {
		return
	}
	select {
	case s.c <- *e:
	default:
		s.dropped.Add(1)
	}
}

// Subscribe adds a subscriber with a queue of queue events for the types in mask.
// With after > 0 the events kept since after (those with a greater ID, of its
// types) come first; missed is how many of them the ring no longer holds (a
// stream then knows it has a gap). Backlog past the queue is dropped and counted.
func (b *Bus) Subscribe(mask Mask, queue int, after uint64) (s *Sub, missed uint64) {
	s = &Sub{b: b, mask: mask, c: make(chan Event, max(1, queue))}
	b.mu.Lock()
	defer b.mu.Unlock()
	if after > 0 && after != b.last {
		first := after + 1
		if after > b.last { // an ID of an earlier process: all that is kept is new
			first = 1
		}
		if oldest := b.oldest(); first < oldest {
			missed, first = oldest-first, oldest
		}
		for id := first; id <= b.last; id++ {
			s.offer(&b.ring[(id-1)%uint64(len(b.ring))])
		}
	}
	b.subs = append(append([]*Sub(nil), b.subs...), s)
	return s, missed
}

// oldest is the ID of the oldest event kept. Caller holds b.mu.
func (b *Bus) oldest() uint64 {
	if n := uint64(len(b.ring)); b.last > n {
		return b.last - n + 1
	}
	return 1
}

// Last is the ID of the latest event (0 before the first).
func (b *Bus) Last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// C is the subscriber's queue; it is closed by Close.
func (s *Sub) C() <-chan Event { return s.c }

// Dropped counts the events this subscriber missed because its queue was full.
func (s *Sub) Dropped() uint64 { return s.dropped.Load() }

// Close removes the subscriber and closes its queue (what is queued stays
// readable). It is safe to call more than once.
func (s *Sub) Close() {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	subs := make([]*Sub, 0, len(b.subs))
	for _, o := range b.subs {
		if o != s {
			subs = append(subs, o)
		}
	}
	b.subs = subs
	close(s.c)
}
