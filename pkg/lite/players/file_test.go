package players

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/uuid"

	"go.minekube.com/gate/internal/mctest"
)

func testLogger(t testing.TB) logr.Logger { return logr.Discard() }

// mc-router's README example, with players in place of its placeholders.
const readmeExample = `{
  "global": {
    "denylist": [
      {"uuid": "11111111-1111-1111-1111-111111111111", "name": "Griefer"}
    ]
  },
  "servers": {
    "my.server.domain": {
      "allowlist": [
        {"uuid": "22222222-2222-2222-2222-222222222222"}
      ]
    },
    "my.other-server.domain": {
      "denylist": [
        {"uuid": "33333333-3333-3333-3333-333333333333"}
      ]
    }
  }
}`

var (
	griefer = Player{Name: "griefer", UUID: uuid.MustParse("11111111-1111-1111-1111-111111111111")}
	friend  = Player{Name: "Friend", UUID: uuid.MustParse("22222222-2222-2222-2222-222222222222")}
	foe     = Player{Name: "Foe", UUID: uuid.MustParse("33333333-3333-3333-3333-333333333333")}
	anyone  = Player{Name: "Anyone", UUID: uuid.MustParse("44444444-4444-4444-4444-444444444444")}
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	// Written aside and renamed over, as editors and ConfigMaps do: a reader never
	// sees half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// The README's example behaves as its README says: players on my.server.domain's
// allow list may join it and no one else may; the global deny list and
// my.other-server.domain's deny list keep their players off that server; a server
// the file does not list is under the global lists only.
func TestMCRouterReadmeExample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow-deny.json")
	writeFile(t, path, readmeExample)
	g := NewGuard(testLogger(t))
	defer g.Close()
	r := &Rules{AllowFile: path, DenyFile: path}
	tests := []struct {
		host string
		p    Player
		want bool
	}{
		{"my.server.domain", friend, true},
		{"my.server.domain", anyone, false},
		{"my.server.domain", griefer, false},
		{"my.other-server.domain", griefer, false},
		{"my.other-server.domain", foe, false},
		{"my.other-server.domain", anyone, true},
		{"my.other-server.domain", friend, true},
		{"unlisted.domain", griefer, false},
		{"unlisted.domain", foe, true},
		{"unlisted.domain", Player{Name: "Griefer", UUID: anyone.UUID}, true}, // both name and UUID must match
	}
	for _, tt := range tests {
		if got := g.Allows(tt.host, tt.p, r); got != tt.want {
			t.Errorf("%s on %s: allowed = %v, want %v", tt.p.Name, tt.host, got, tt.want)
		}
	}
}

// A vanilla whitelist.json (a bare list) works as an allowFile, and the key that
// names a file decides which side of it counts.
func TestBareListAsAllowFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "whitelist.json")
	writeFile(t, path, `[{"uuid": "22222222-2222-2222-2222-222222222222", "name": "Friend"}]`)
	g := NewGuard(testLogger(t))
	defer g.Close()
	if !g.Allows("a", friend, &Rules{AllowFile: path}) || g.Allows("a", anyone, &Rules{AllowFile: path}) {
		t.Fatal("allowFile: want only Friend allowed")
	}
	if g.Allows("a", friend, &Rules{DenyFile: path}) || !g.Allows("a", anyone, &Rules{DenyFile: path}) {
		t.Fatal("denyFile: want only Friend denied")
	}
}

// A file that changes is read again; a broken file keeps the lists it had and is
// logged once however often it changes while broken.
func TestFileReloadsAndKeepsListsWhenBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deny.json")
	writeFile(t, path, `[{"name": "Foe"}]`)
	var logs mctest.Logs
	g := NewGuard(logs.Logger(0))
	defer g.Close()
	r := &Rules{DenyFile: path}
	if g.Allows("a", foe, r) || !g.Allows("a", anyone, r) {
		t.Fatal("want Foe denied at first")
	}
	writeFile(t, path, `[{"name": "Anyone"}]`)
	mctest.WaitFor(t, "the new list", 5*time.Second, func() bool { return !g.Allows("a", anyone, r) && g.Allows("a", foe, r) })

	writeFile(t, path, `[{"name": `)
	mctest.WaitFor(t, "the broken file logged", 5*time.Second, func() bool { return logs.Count("not loaded") == 1 })
	writeFile(t, path, `[{"name": `)
	writeFile(t, path+".other", `unrelated`) // a change beside it reloads nothing
	if g.Allows("a", anyone, r) || !g.Allows("a", foe, r) {
		t.Fatal("a broken file must keep the old list")
	}
	writeFile(t, path, `[{"name": "Foe"}]`)
	mctest.WaitFor(t, "the fixed list", 5*time.Second, func() bool { return !g.Allows("a", foe, r) })
	if n := logs.Count("not loaded"); n != 1 {
		t.Fatalf("the broken file was logged %d times, want once", n)
	}
}

// An allow file that never loaded admits no one: an allow list that failed must
// not open the server.
func TestMissingAllowFileAdmitsNoOne(t *testing.T) {
	var logs mctest.Logs
	g := NewGuard(logs.Logger(0))
	defer g.Close()
	path := filepath.Join(t.TempDir(), "missing.json")
	if g.Allows("a", friend, &Rules{AllowFile: path}) {
		t.Fatal("missing allow file admitted a player")
	}
	if !g.Allows("a", friend, &Rules{DenyFile: path}) {
		t.Fatal("missing deny file refused a player")
	}
	if n := logs.Count("not loaded"); n != 1 {
		t.Fatalf("logged %d times, want once", n)
	}
	writeFile(t, path, `[{"name": "Friend"}]`)
	mctest.WaitFor(t, "the file once it appears", 5*time.Second, func() bool { return g.Allows("a", friend, &Rules{AllowFile: path}) })
}

// A path that names no regular file (a directory, a FIFO, a device) is refused
// without being read: it could block or never end.
func TestLoadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("LoadFile(directory) = %v", err)
	}
	if _, err := LoadFile(os.DevNull); err == nil {
		t.Fatal("LoadFile(/dev/null) read a device")
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, append([]byte("["), make([]byte, MaxFileSize+1)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(big); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("LoadFile(17 MiB) = %v", err)
	}
}
