package status

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseReportRealShapes(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Report
	}{
		{"vanilla_1_20_4_sample.json", Report{
			VersionName: "1.20.4", Protocol: 765, Online: 2, Max: 20, HasPlayers: true,
			MOTD: "A Minecraft Server",
		}},
		{"paper_string_description.json", Report{
			VersionName: "Paper 1.20.1", Protocol: 763, Online: 37, Max: 100, HasPlayers: true,
			MOTD: "§aWelcome to §lExample§r\n§7Survival 1.20.1",
		}},
		{"velocity_component_extra.json", Report{
			VersionName: "Velocity 3.3.0-SNAPSHOT", Protocol: 767, Online: 0, Max: 500, HasPlayers: true,
			MOTD: "Example Network | menu.online\nkey.jump2",
		}},
		{"forge_1_12_modinfo.json", Report{
			VersionName: "1.12.2", Protocol: 340, Online: 1, Max: 20, HasPlayers: true,
			MOTD: "Forge Pack Server",
		}},
		{"forge_1_20_forgedata.json", Report{
			VersionName: "1.20.1", Protocol: 763, Online: 3, Max: 10, HasPlayers: true,
			MOTD: "Modded 1.20",
		}},
		{"starting_no_players.json", Report{
			VersionName: "§4Starting...", Protocol: -1, MOTD: "Server is starting",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			wantReport(t, data, tc.want)
		})
	}
}

// wantReport fails t unless ParseReport reads data as want.
func wantReport(t *testing.T, data []byte, want Report) {
	t.Helper()
	got, err := ParseReport(data)
	if err != nil {
		t.Fatalf("ParseReport: %v", err)
	}
	if got != want {
		t.Errorf("ParseReport =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseReportOddFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Report
	}{
		{"empty object", `{}`, Report{}},
		{"max zero is no load data", `{"players":{"max":0,"online":0}}`, Report{}},
		{"negative online is implausible", `{"players":{"max":20,"online":-5}}`, Report{Online: -5, Max: 20}},
		{"online above max still plausible", `{"players":{"max":20,"online":25}}`, Report{Online: 25, Max: 20, HasPlayers: true}},
		{"missing online", `{"players":{"max":20}}`, Report{Max: 20}},
		{"players as string", `{"players":"lots","version":{"name":"x","protocol":5}}`, Report{VersionName: "x", Protocol: 5}},
		{"protocol as string number", `{"version":{"name":"1.8","protocol":"47"}}`, Report{VersionName: "1.8", Protocol: 47}},
		{"protocol out of int32 range", `{"version":{"name":"odd","protocol":99999999999}}`, Report{VersionName: "odd"}},
		{"fractional count", `{"players":{"max":20.5,"online":1}}`, Report{Online: 1}},
		{"translate keeps key", `{"description":{"translate":"multiplayer.status.cannot_connect","with":["x"]}}`, Report{MOTD: "multiplayer.status.cannot_connect"}},
		{"description array", `{"description":["a",{"text":"b"},true]}`, Report{MOTD: "abtrue"}},
		{"description null", `{"description":null}`, Report{}},
		{"leading whitespace", " \n{\"version\":{\"name\":\"1.21\",\"protocol\":767}}", Report{VersionName: "1.21", Protocol: 767}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantReport(t, []byte(tc.in), tc.want) })
	}
}

func TestParseReportGarbage(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		notObject bool
	}{
		{"empty", ``, true},
		{"plain text", `Hello from nginx`, true},
		{"json null", `null`, true},
		{"json array", `[{"version":{}}]`, true},
		{"json string", `"motd"`, true},
		{"truncated object", `{"version":{"name":"1.20`, false},
		{"trailing garbage", `{"version":{}} extra`, false},
		{"http response", "HTTP/1.1 400 Bad Request\r\n\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReport([]byte(tc.in))
			if err == nil {
				t.Fatalf("ParseReport = %+v, want error", got)
			}
			if errors.Is(err, ErrNotStatus) != tc.notObject {
				t.Errorf("err = %v, errors.Is(ErrNotStatus) = %v, want %v", err, !tc.notObject, tc.notObject)
			}
			if got != (Report{}) {
				t.Errorf("report on error = %+v, want zero", got)
			}
		})
	}
}

func TestParseReportDeepNestingIsBounded(t *testing.T) {
	in := `{"description":`
	for range 200 {
		in += `{"text":"x","extra":[`
	}
	in += `"end"`
	for range 200 {
		in += `]}`
	}
	in += `}`
	got, err := ParseReport([]byte(in))
	if err != nil {
		t.Fatalf("ParseReport: %v", err)
	}
	// Each nesting level costs one step of depth, and a level's text one more, so the
	// levels at depth 0..maxComponentDepth-1 contribute their "x".
	if want := maxComponentDepth; len(got.MOTD) != want {
		t.Errorf("len(MOTD) = %d, want %d", len(got.MOTD), want)
	}
}

func FuzzParseReport(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"description":[[[[]]]],"players":{"max":-1e400}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseReport(data)
		if err != nil && r != (Report{}) {
			t.Fatalf("non-zero report %+v with error %v", r, err)
		}
		if r.HasPlayers && (r.Max <= 0 || r.Online < 0) {
			t.Fatalf("implausible players marked present: %+v", r)
		}
	})
}

func BenchmarkParseReport(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "vanilla_1_20_4_sample.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseReport(data); err != nil {
			b.Fatal(err)
		}
	}
}
