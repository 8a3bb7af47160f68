package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestZZTimeCorpus(t *testing.T) {
	dir := os.Getenv("ZZ_DIR")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		data := zzDecode(t, raw)
		start := time.Now()
		done := make(chan struct{})
		go func() { Parse(data, "fuzz.yml"); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Errorf("%s: slow (>3s), %d bytes", f, len(data))
			continue
		}
		if el := time.Since(start); el > 50*time.Millisecond {
			t.Logf("%s: %v, %d bytes", f, el, len(data))
		}
	}
}

func zzDecode(t *testing.T, raw []byte) []byte {
	lines := splitLines(string(raw))
	for _, l := range lines[1:] {
		if len(l) > 7 && l[:7] == "[]byte(" {
			s, err := strconv.Unquote(l[7 : len(l)-1])
			if err != nil {
				t.Fatal(err)
			}
			return []byte(s)
		}
	}
	t.Fatal("no data")
	return nil
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func BenchmarkZZParseRepo(b *testing.B) {
	for _, name := range []string{"config.yml", "config-lite.yml"} {
		data, err := os.ReadFile(repoRoot + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(data, "x.yml")
			}
		})
	}
}
