package status

import (
	"encoding/json"
	"strings"
	"testing"
)

// renderedStatus mirrors what a client decodes from a Status Response.
type renderedStatus struct {
	Version struct {
		Name     string `json:"name"`
		Protocol int32  `json:"protocol"`
	} `json:"version"`
	Players *struct {
		Max    int `json:"max"`
		Online int `json:"online"`
	} `json:"players"`
	Description json.RawMessage `json:"description"`
	Favicon     *string         `json:"favicon"`
}

func ptr[T any](v T) *T { return &v }

func TestFallbackRender(t *testing.T) {
	const favicon = "data:image/png;base64,iVBORw0KGgo="
	for _, tc := range []struct {
		name        string
		fb          *Fallback
		protocol    int32
		wantProto   int32
		wantName    string
		wantMOTD    string
		wantFavicon *string
		wantPlayers [2]int // online, max
	}{
		{"echo client protocol", &Fallback{VersionName: "Maintenance", MOTD: Text("§cBack soon")},
			769, 769, "Maintenance", `{"text":"§cBack soon"}`, nil, [2]int{0, 0}},
		{"fixed protocol shows incompatible", &Fallback{VersionName: "1.20.4", VersionProtocol: ptr(int32(765)), MOTD: Text("Down")},
			769, 765, "1.20.4", `{"text":"Down"}`, nil, [2]int{0, 0}},
		{"favicon and players", &Fallback{VersionName: "x", Online: 3, Max: 50, Favicon: favicon, MOTD: json.RawMessage(`{"text":"a","extra":[{"text":"b","color":"red"}]}`)},
			47, 47, "x", `{"text":"a","extra":[{"text":"b","color":"red"}]}`, ptr(favicon), [2]int{3, 50}},
		{"nil motd is empty text", &Fallback{VersionName: "x"},
			765, 765, "x", `{"text":""}`, nil, [2]int{0, 0}},
		{"invalid motd shown as text", &Fallback{MOTD: json.RawMessage(`Down "for" <maintenance>`)},
			765, 765, "", `{"text":"Down \"for\" <maintenance>"}`, nil, [2]int{0, 0}},
		{"nil fallback", nil,
			-1, -1, "", `{"text":""}`, nil, [2]int{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.fb.Render(tc.protocol)
			var got renderedStatus
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("Render produced invalid JSON %s: %v", out, err)
			}
			if got.Version.Protocol != tc.wantProto || got.Version.Name != tc.wantName {
				t.Errorf("version = %+v, want {%q %d}", got.Version, tc.wantName, tc.wantProto)
			}
			if string(got.Description) != tc.wantMOTD {
				t.Errorf("description = %s, want %s", got.Description, tc.wantMOTD)
			}
			if (got.Favicon == nil) != (tc.wantFavicon == nil) || (got.Favicon != nil && *got.Favicon != *tc.wantFavicon) {
				t.Errorf("favicon = %v, want %v", got.Favicon, tc.wantFavicon)
			}
			if got.Players == nil || [2]int{got.Players.Online, got.Players.Max} != tc.wantPlayers {
				t.Errorf("players = %+v, want online/max %v", got.Players, tc.wantPlayers)
			}
			r, err := ParseReport(out)
			if err != nil || r.Protocol != tc.wantProto {
				t.Errorf("ParseReport(Render) = %+v, %v", r, err)
			}
		})
	}
}

func TestFallbackRenderExactBytes(t *testing.T) {
	fb := &Fallback{VersionName: "Lite", MOTD: Text("Offline"), Online: 0, Max: 100, Favicon: "data:image/png;base64,AA=="}
	want := `{"version":{"name":"Lite","protocol":765},"players":{"max":100,"online":0},` +
		`"description":{"text":"Offline"},"favicon":"data:image/png;base64,AA=="}`
	if got := string(fb.Render(765)); got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
}

func BenchmarkFallbackRender(b *testing.B) {
	fb := &Fallback{VersionName: "Lite", MOTD: Text("§cAll servers are down"), Max: 100, Favicon: "data:image/png;base64,AA=="}
	b.ReportAllocs()
	for b.Loop() {
		fb.Render(765)
	}
}

func TestFallbackRenderSample(t *testing.T) {
	fb := &Fallback{Online: 1, Max: 10, Sample: []SamplePlayer{{Name: "Notch", ID: "069a79f4-44e9-4726-a5be-fca90e38aaf5"}}}
	got := string(fb.Render(765))
	want := `{"version":{"name":"","protocol":765},"players":{"max":10,"online":1,"sample":[{"name":"Notch","id":"069a79f4-44e9-4726-a5be-fca90e38aaf5"}]},"description":{"text":""}}`
	if got != want {
		t.Fatalf("Render =\n %s\nwant\n %s", got, want)
	}
	if out := string((&Fallback{}).Render(765)); strings.Contains(out, "sample") {
		t.Fatalf("no sample configured, yet rendered: %s", out)
	}
}
