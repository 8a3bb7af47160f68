package players

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
)

var (
	validUser = Player{Name: "player_name", UUID: uuid.MustParse("53036a8f-cbc8-4074-bbc5-98e5e19b0b14")}
	otherUser = Player{Name: "other_player", UUID: uuid.MustParse("0d51a0ca-f498-44bf-813f-635c18594b8c")}
)

func entry(p Player) Entry { return Entry(p) }

// fileRules is a File named by both allowFile and denyFile, as mc-router reads its
// one allow/deny file; the Guard is bypassed so the cases need no disk.
func fileAllows(f *File, host string, p Player) bool {
	var k key
	k.set(p)
	allow, deny := []*List{&f.Global.Allow}, []*List{&f.Global.Deny}
	if s := f.server(host); s != nil {
		allow, deny = append(allow, &s.Allow), append(deny, &s.Deny)
	}
	return allowed(&k, allow, deny)
}

// mc-router's own cases for its allow/deny file (server/allow_deny_list_test.go),
// with the same expectations.
func TestMCRouterPrecedence(t *testing.T) {
	const host = "server.my.domain"
	lists := func(allow, deny []Entry) Lists { return Lists{Allow: NewList(allow), Deny: NewList(deny)} }
	tests := []struct {
		name string
		file *File
		want bool
	}{
		{"empty config", &File{}, true},
		{"impossible global allowlist", &File{Global: lists([]Entry{{}}, nil)}, false},
		{"player allowed globally", &File{Global: lists([]Entry{entry(validUser)}, nil)}, true},
		{"player not in allowlist", &File{Global: lists([]Entry{entry(otherUser)}, nil)}, false},
		{"player denied globally", &File{Global: lists(nil, []Entry{entry(validUser)})}, false},
		{"player allowed and denied globally", &File{Global: lists([]Entry{entry(validUser)}, []Entry{entry(validUser)})}, true},
		{"player allowed on server", &File{Servers: map[string]*Lists{host: new(lists([]Entry{entry(validUser)}, nil))}}, true},
		{"player not allowed on server", &File{Servers: map[string]*Lists{host: new(lists([]Entry{entry(otherUser)}, nil))}}, false},
		{"player denied on server", &File{Servers: map[string]*Lists{host: new(lists(nil, []Entry{entry(validUser)}))}}, false},
		{"player allowed globally but denied on server", &File{Global: lists([]Entry{entry(validUser)}, nil),
			Servers: map[string]*Lists{host: new(lists(nil, []Entry{entry(validUser)}))}}, true},
		{"player denied globally but allowed on server", &File{Global: lists(nil, []Entry{entry(validUser)}),
			Servers: map[string]*Lists{host: new(lists([]Entry{entry(validUser)}, nil))}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileAllows(tt.file, host, validUser); got != tt.want {
				t.Fatalf("allowed = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEntryMatching(t *testing.T) {
	steve := Player{Name: "Steve", UUID: uuid.MustParse("069a79f4-44e9-4726-a5be-fca90e38aaf5")}
	tests := []struct {
		name  string
		entry Entry
		p     Player
		want  bool
	}{
		{"name in another case", Entry{Name: "sTEVE"}, steve, true},
		{"other name", Entry{Name: "Alex"}, steve, false},
		{"UUID", Entry{UUID: steve.UUID}, steve, true},
		{"UUID of a player who sent none", Entry{UUID: steve.UUID}, Player{Name: "Steve"}, false},
		{"name and UUID both match", Entry{Name: "steve", UUID: steve.UUID}, steve, true},
		{"name matches, UUID does not", Entry{Name: "Steve", UUID: otherUser.UUID}, steve, false},
		{"UUID matches, name does not", Entry{Name: "Alex", UUID: steve.UUID}, steve, false},
		{"empty entry", Entry{}, steve, false},
		{"non-ASCII name folds", Entry{Name: "ÄRGER"}, Player{Name: "ärger"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewList([]Entry{tt.entry})
			var k key
			k.set(tt.p)
			if got := l.has(&k); got != tt.want {
				t.Fatalf("has = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseEntry(t *testing.T) {
	id := uuid.MustParse("069a79f4-44e9-4726-a5be-fca90e38aaf5")
	tests := []struct {
		in   string
		want Entry
		err  bool
	}{
		{"Steve", Entry{Name: "Steve"}, false},
		{"069a79f4-44e9-4726-a5be-fca90e38aaf5", Entry{UUID: id}, false},
		{"069a79f444e94726a5befca90e38aaf5", Entry{UUID: id}, false},
		{"069A79F444E94726A5BEFCA90E38AAF5", Entry{UUID: id}, false},
		{"abcdefghijklmnop", Entry{Name: "abcdefghijklmnop"}, false},
		{"abcdefghijklmnopq", Entry{}, true},
		{"", Entry{}, true},
		{" Steve", Entry{}, true},
	}
	for _, tt := range tests {
		got, err := ParseEntry(tt.in)
		if got != tt.want || (err != nil) != tt.err || err != nil && !errors.Is(err, ErrBadEntry) {
			t.Errorf("ParseEntry(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func BenchmarkAllows(b *testing.B) {
	g := NewGuard(testLogger(b))
	defer g.Close()
	var deny []Entry
	for i := range 1000 {
		deny = append(deny, Entry{Name: "banned" + string(rune('a'+i%26)) + string(rune('a'+i/26%26))})
	}
	global := &Rules{Deny: NewList(deny)}
	route := &Rules{}
	p := Player{Name: "SomePlayer", UUID: validUser.UUID}
	b.ReportAllocs()
	for b.Loop() {
		if !g.Allows("mc.example.com", p, global, route) {
			b.Fatal("refused")
		}
	}
}

func TestAppendLogClipsWhatThePlayerWrote(t *testing.T) {
	tests := []struct {
		p    *Player
		want []any
	}{
		{nil, nil},
		{&Player{Name: "Steve"}, []any{"player", "Steve"}},
		{&Player{Name: "Steve", UUID: validUser.UUID}, []any{"player", "Steve", "uuid", validUser.UUID.String()}},
		{&Player{Name: "a\nb"}, []any{"player", `"a\nb"`}},
	}
	for _, tt := range tests {
		if got := tt.p.AppendLog(nil); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("AppendLog(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
