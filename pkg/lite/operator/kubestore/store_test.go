package kubestore

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"go.minekube.com/gate/pkg/lite/operator"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A key the store cannot read (edited by hand, or written by a newer proxy) is
// written back as it was: a write changes its own key and no other.
func TestWriteKeepsKeysItCannotRead(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	old := map[string]string{
		"ban.bmFtZTpncmllZmVy": `{"kind":"ban","target":"name:griefer","by":"a","at":"2026-12-03T12:00:00Z"}`,
		"hand-written":         "not an entry",
		"ban.bmFtZTp4":         `{"kind":"ban","target":"name:x","future":true}`,
	}
	cur, bad := operator.FromData(old)
	if len(cur) != 1 || len(bad) != 2 {
		t.Fatalf("decoded %v, bad %v", cur, bad)
	}
	next := cur.Apply(operator.Change{Entry: operator.Entry{Kind: operator.Drain, Target: "10.0.0.1:25565", At: at}})
	data := keepBad(old, cur, next)
	if len(data) != 4 || data["hand-written"] != "not an entry" || data["ban.bmFtZTp4"] != old["ban.bmFtZTp4"] {
		t.Fatalf("written back: %v", data)
	}
	deleted := cur.Apply(operator.Change{Entry: operator.Entry{Kind: operator.Ban, Target: "name:griefer"}, Delete: true})
	if data := keepBad(old, cur, deleted); len(data) != 2 || data["ban.bmFtZTpncmllZmVy"] != "" {
		t.Fatalf("after a delete: %v", data)
	}
}

func TestNamespaceFallsBackInOrder(t *testing.T) {
	if got := Namespace("ops", "games"); got != "ops" {
		t.Fatalf("configured: %q", got)
	}
	if got := Namespace("", "games"); got != "games" {
		t.Fatalf("discovery's: %q", got)
	}
}
