package operator

import (
	"testing"
	"time"
)

// FuzzFromData: whatever a ConfigMap or a state file holds (someone edits it by
// hand), decoding never panics, and every entry it keeps is valid, under the
// key it names, and compiles.
func FuzzFromData(f *testing.F) {
	ban := Entry{Kind: Ban, Target: "name:griefer", Text: "griefing", By: "alice", At: t0}
	f.Add(ban.Key(), `{"kind":"ban","target":"name:griefer","text":"griefing","by":"alice","at":"2026-12-03T12:00:00Z"}`)
	f.Add("maintenance.Kg", `{"kind":"maintenance","target":"*","bypass":["Admin"],"by":"","at":"2026-12-03T12:00:00Z"}`)
	f.Add("override.Kg", `{"kind":"override","target":"*","maxPlayers":-5,"by":"","at":"0001-01-01T00:00:00Z"}`)
	f.Add("drain.MTAuMC4wLjE6MQ", `{"kind":"drain","target":"10.0.0.1:1","extra":1}`)
	f.Add("ban.", `[`)
	f.Fuzz(func(t *testing.T, key, value string) {
		s, _ := FromData(map[string]string{key: value})
		for k, e := range s {
			if k != e.Key() {
				t.Fatalf("kept under %q an entry whose key is %q", k, e.Key())
			}
			again := e
			again.Expires = nil
			if err := Validate(&again, e.At); err != nil {
				t.Fatalf("kept an invalid entry %+v: %v", e, err)
			}
		}
		l := Compile(s)
		l.Refuse("r", nil, steve, home, time.Now())
		l.Status("r", nil).Apply([]byte(`{"description":"x"}`))
	})
}
