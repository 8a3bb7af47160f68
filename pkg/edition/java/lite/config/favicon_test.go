package config

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngOf encodes a w x h PNG. noisy pixels (seeded) keep it from compressing,
// for a file whose data URI is too large.
func pngOf(t *testing.T, w, h int, noisy ...bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = 0xff
		if len(noisy) > 0 && noisy[0] {
			img.Pix[i] = byte(rng.Uint32())
		}
	}
	img.Set(0, 0, color.Black)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFaviconChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.png", pngOf(t, 64, 64))
	write("small.png", pngOf(t, 16, 16))
	write("huge.png", pngOf(t, 128, 128, true))
	write("icon.jpg", []byte("\xff\xd8\xff\xe0 not a png"))
	okURI := pngDataURIPrefix + base64.StdEncoding.EncodeToString(pngOf(t, 64, 64))
	path := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name, favicon, err, warn string
	}{
		{"64x64 file", "ok.png", "", ""},
		{"64x64 data URI", okURI, "", ""},
		{"not 64x64 is a warning naming the file and size", "small.png", "",
			"favicon file " + path("small.png") + " is 16x16; clients show 64x64, so it will be scaled"},
		{"not a PNG is an error naming the file", "icon.jpg",
			"favicon file " + path("icon.jpg") + " is not a PNG image clients can show", ""},
		{"too large for a status response is an error naming the file", "huge.png",
			"favicon file " + path("huge.png") + " is ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := minimal + "        fallback:\n          favicon: " + tc.favicon + "\n"
			_, warns, err := Parse([]byte(src), path("config.yml"))
			prefix := path("config.yml") + ":8: config.lite.routes[0].fallback.favicon: "
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), prefix+tc.err)):
				t.Fatalf("err = %v, want prefix %q", err, prefix+tc.err)
			}
			if tc.name == "too large for a status response is an error naming the file" && !strings.Contains(err.Error(), "a status response has room for at most") {
				t.Fatalf("err = %v, want it to say the limit", err)
			}
			got := strings.Join(warningStrings(warns), "\n")
			if want := tc.warn; want != "" {
				want = prefix + want
				if got != want {
					t.Fatalf("warnings %q, want %q", got, want)
				}
			} else if got != "" {
				t.Fatalf("unexpected warnings %q", got)
			}
		})
	}
}

func TestTimeoutWarnings(t *testing.T) {
	tests := []struct{ name, keys, want string }{
		{"bare small number meant seconds", "  connectionTimeout: 5\n",
			`config.yml:2: config.connectionTimeout: 5 means 5ms: bare numbers are milliseconds; did you mean "5s"?`},
		{"readTimeout of an hour", "  readTimeout: 1h\n",
			`config.yml:2: config.readTimeout: 1h0m0s is far longer than needed (default 30s); did you mean 1m?`},
		{"readTimeout of an hour in milliseconds", "  readTimeout: 3600000\n",
			`config.yml:2: config.readTimeout: 1h0m0s is far longer than needed (default 30s); did you mean 1m?`},
		{"odd long value suggests the default", "  connectionTimeout: 10m30s\n",
			`config.yml:2: config.connectionTimeout: 10m30s is far longer than needed (default 5s); did you mean 5s?`},
		{"sensible values", "  connectionTimeout: 5000\n  readTimeout: 30s\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, warns, err := parse(t, "config:\n"+tc.keys+minimal[len("config:\n"):])
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(warningStrings(warns), "\n"); got != tc.want {
				t.Fatalf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
