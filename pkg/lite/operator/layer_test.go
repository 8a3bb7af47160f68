package operator

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/lite/players"
)

// mustState validates entries at t0 and builds a state of them.
func mustState(t *testing.T, es ...Entry) State {
	t.Helper()
	s := State{}
	for _, e := range es {
		if err := Validate(&e, t0); err != nil {
			t.Fatal(err)
		}
		e.At = t0
		s = s.Apply(Change{Entry: e})
	}
	return s
}

var (
	steve = players.Player{Name: "Steve", UUID: uuid.MustParse("8667ba71-b85a-4004-af54-457a9734eed7")}
	alex  = players.Player{Name: "Alex"}
	home  = netip.MustParseAddr("198.51.100.9")
)

func refused(l *Layer, key string, p players.Player, ip netip.Addr, now time.Time) string {
	text, no := l.Refuse(key, []string{key}, p, ip, now)
	if !no {
		return ""
	}
	var c struct{ Text string }
	_ = json.Unmarshal(text, &c)
	return c.Text
}

func TestRefuse(t *testing.T) {
	end := t0.Add(5 * time.Second)
	l := Compile(mustState(t,
		Entry{Kind: Maintenance, Target: "play.example.com", Text: "Back at 18:00", Bypass: []string{"steve"}},
		Entry{Kind: Ban, Target: "ip:203.0.113.0/24", Text: "spam"},
		Entry{Kind: Ban, Target: "Alex", Text: "griefing", Expires: &end},
	))
	cases := []struct {
		name string
		key  string
		p    players.Player
		ip   netip.Addr
		now  time.Time
		want string // a part of the text; "" admitted
	}{
		{"maintenance refuses", "play.example.com", players.Player{Name: "Other"}, home, t0, "Back at 18:00"},
		{"bypass by name any case", "play.example.com", steve, home, t0, ""},
		{"other route open", "lobby.example.com", players.Player{Name: "Other"}, home, t0, ""},
		{"ban by range wins over bypass", "play.example.com", steve, netip.MustParseAddr("203.0.113.200"), t0, "Reason: spam"},
		{"mapped address in range", "lobby.example.com", alex, netip.MustParseAddr("::ffff:203.0.113.1"), end, "spam"},
		{"ban with expiry says when", "lobby.example.com", alex, home, t0, "ends in about 5 seconds"},
		{"ban ended admits", "lobby.example.com", alex, home, end, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := refused(l, c.key, c.p, c.ip, c.now)
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Fatalf("refused = %q, want %q", got, c.want)
			}
		})
	}
	var nilLayer *Layer
	if _, no := nilLayer.Refuse("x", nil, steve, home, t0); no || nilLayer.Status("x", nil) != nil || nilLayer.Drained() != nil {
		t.Fatal("the nil layer refuses, patches or drains something")
	}
}

func TestGlobalMaintenanceYieldsToTheRoutesOwn(t *testing.T) {
	l := Compile(mustState(t, Entry{Kind: Maintenance, Target: "*", Text: "everything"},
		Entry{Kind: Maintenance, Target: "a.example.com", Text: "only a"}))
	if got := refused(l, "a.example.com", alex, home, t0); got != "only a" {
		t.Fatalf("route a: %q", got)
	}
	if got := refused(l, "b.example.com", alex, home, t0); got != "everything" {
		t.Fatalf("route b: %q", got)
	}
}

func TestStatusKeepsCountsAndFavicon(t *testing.T) {
	l := Compile(mustState(t, Entry{Kind: Override, Target: "*", MOTD: "Event tonight", Version: "Event 1.21", MaxPlayers: intp(500)},
		Entry{Kind: Maintenance, Target: "a.example.com", Text: "Maintenance"}))
	body := []byte(`{"version":{"name":"1.21","protocol":767},"players":{"max":20,"online":7,"sample":[{"name":"x","id":"00000000-0000-0000-0000-000000000000"}]},"description":{"text":"hi"},"favicon":"data:image/png;base64,AAAA"}`)
	var got struct {
		Version struct {
			Name     string
			Protocol int
		}
		Players struct {
			Max, Online int
			Sample      []json.RawMessage
		}
		Description struct{ Text string }
		Favicon     string
	}
	if err := json.Unmarshal(l.Status("a.example.com", nil).Apply(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Description.Text != "Maintenance" || got.Favicon != "data:image/png;base64,AAAA" || got.Players.Online != 7 ||
		len(got.Players.Sample) != 1 || got.Players.Max != 500 || got.Version.Name != "Event 1.21" || got.Version.Protocol != 767 {
		t.Fatalf("patched = %+v", got)
	}
	if err := json.Unmarshal(l.Status("b.example.com", nil).Apply(body), &got); err != nil || got.Description.Text != "Event tonight" {
		t.Fatalf("override alone = %+v, %v", got, err)
	}
}

func TestMergeIsDeterministicAndLosesNoKey(t *testing.T) {
	a := mustState(t, Entry{Kind: Drain, Target: "10.0.0.1:25565"}, Entry{Kind: Ban, Target: "alex"})
	b := mustState(t, Entry{Kind: Drain, Target: "10.0.0.2:25565"})
	later := Entry{Kind: Ban, Target: "name:alex", Text: "second", By: "bob", At: t0.Add(time.Second)}
	b = b.Apply(Change{Entry: later})
	tie1 := Entry{Kind: Maintenance, Target: "*", Text: "one", By: "alice", At: t0}
	tie2 := Entry{Kind: Maintenance, Target: "*", Text: "two", By: "bob", At: t0}
	a, b = a.Apply(Change{Entry: tie1}), b.Apply(Change{Entry: tie2})
	ab, ba := Merge(a, b), Merge(b, a)
	if len(ab) != 4 {
		t.Fatalf("merged %d keys, want 4: %v", len(ab), ab.Sorted())
	}
	for k := range ab {
		x, _ := json.Marshal(ab[k])
		y, _ := json.Marshal(ba[k])
		if string(x) != string(y) {
			t.Fatalf("key %s: %s one way, %s the other", k, x, y)
		}
	}
	if ab[later.Key()].Text != "second" || ab[tie1.Key()].By != "bob" {
		t.Fatalf("winners: %+v, %+v", ab[later.Key()], ab[tie1.Key()])
	}
}

func TestFileStoreSurvivesRestartAndPrunesEndedBans(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	now := t0
	fs := NewFileStore(path, func() time.Time { return now })
	ctx := context.Background()
	end := t0.Add(5 * time.Second)
	for _, e := range []Entry{{Kind: Ban, Target: "name:alex", Expires: &end, At: t0}, {Kind: Override, Target: "*", MOTD: "m", At: t0}} {
		if _, _, err := fs.Write(ctx, Change{Entry: e}); err != nil {
			t.Fatal(err)
		}
	}
	again, bad, err := NewFileStore(path, nil).Load(ctx)
	if err != nil || len(bad) != 0 || len(again) != 2 {
		t.Fatalf("reloaded %v, bad %v, err %v", again.Sorted(), bad, err)
	}
	now = end
	s, _, err := fs.Write(ctx, Change{Entry: Entry{Kind: Drain, Target: "10.0.0.1:25565", At: end}})
	if err != nil || len(s) != 2 || s[(&Entry{Kind: Ban, Target: "name:alex"}).Key()].Kind != "" {
		t.Fatalf("after the ban ended: %v, %v", s.Sorted(), err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestFileStoreRefusesABrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"entries":[{"kind":"ban"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewFileStore(path, nil).Load(context.Background()); err == nil {
		t.Fatal("a truncated state file loaded")
	}
	hostile := `{"version":1,"entries":[{"kind":"drain","target":"10.0.0.1:1","by":"","at":"2026-01-01T00:00:00Z"},` +
		`{"kind":"ban","target":"name:` + strings.Repeat("x", 40) + `","by":"","at":"2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(path, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	s, bad, err := NewFileStore(path, nil).Load(context.Background())
	if err != nil || len(s) != 1 || len(bad) != 1 {
		t.Fatalf("a file with one bad entry: %v, bad %v, err %v", s.Sorted(), bad, err)
	}
}
