package handover

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"
)

func sampleSession() Session {
	return Session{
		Client: "203.0.113.7:51234", Route: "play.example.com", Backend: "10.0.0.5:25565",
		BackendTemplate: "10.0.0.5:25565", VHost: "play.example.com", Protocol: 764, Intent: 2,
		Player: "Notch", UUID: [16]byte{1, 2, 3}, Start: time.Unix(1700000000, 123456789),
		Up: 12345, Down: 987654321, HeldUp: []byte("up bytes"), HeldDown: bytes.Repeat([]byte{7}, 5000),
		HoldsWake: true, LogEnd: true,
	}
}

func TestSessionRoundTrips(t *testing.T) {
	for _, s := range []Session{sampleSession(), {Start: time.Unix(0, 1)}} {
		got, err := ParseSession(AppendSession(nil, &s))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("got %+v, want %+v", got, s)
		}
	}
}

// TestSessionRefusesWhatThisVersionCannotRead: another version, a cut message, a
// length past its bound and trailing bytes are each refused.
func TestSessionRefusesWhatThisVersionCannotRead(t *testing.T) {
	s := sampleSession()
	good := AppendSession(nil, &s)
	long := Session{Route: string(bytes.Repeat([]byte("a"), maxText+1))}
	huge := append([]byte{Version}, binary.AppendUvarint(nil, MaxHeld*4)...)
	tests := []struct {
		name string
		b    []byte
	}{
		{"another version", append([]byte{Version + 1}, good[1:]...)},
		{"cut short", good[:len(good)-1]},
		{"empty", nil},
		{"text over its bound", AppendSession(nil, &long)},
		{"length over every bound", huge},
		{"trailing bytes", append(append([]byte(nil), good...), 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseSession(tt.b); !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseSession: %v, want ErrMalformed", err)
			}
		})
	}
}

func FuzzParseSession(f *testing.F) {
	s := sampleSession()
	f.Add(AppendSession(nil, &s))
	f.Add([]byte{Version})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseSession(b)
		if err != nil {
			return
		}
		again, err := ParseSession(AppendSession(nil, &got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("re-encoding %+v: %v", got, err)
		}
	})
}
