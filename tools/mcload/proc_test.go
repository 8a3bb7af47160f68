package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// parseCase is one /proc text and the number a parser must read from it.
type parseCase struct {
	name, in string
	want     int64
	wantErr  bool
}

// testParser runs parse (named fn in failures) over cases.
func testParser(t *testing.T, fn string, parse func([]byte) (int64, error), cases []parseCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse([]byte(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("%s = %d, %v; want %d, error %v", fn, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseStatCPU(t *testing.T) {
	testParser(t, "parseStatCPU", parseStatCPU, []parseCase{
		{"plain command", "42 (gate) S 1 42 42 0 -1 4194560 500 0 0 0 150 25 0 0 20 0 9 0 100 1000 200", 175, false},
		{"command with spaces and parentheses", "7 (my (odd) proc) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1", 7, false},
		{"no command name", "7 gate R 1", 0, true},
		{"cut short", "7 (gate) R 1 7 7", 0, true},
		{"not numbers", "7 (gate) R 1 7 7 0 -1 0 0 0 0 0 x y 0 0", 0, true},
	})
}

func TestParseStatusRSS(t *testing.T) {
	testParser(t, "parseStatusRSS", parseStatusRSS, []parseCase{
		{"kernel format", "Name:\tgate\nVmPeak:\t  900 kB\nVmRSS:\t   11804 kB\nThreads:\t7\n", 11804, false},
		{"zombie has none", "Name:\tgate\nState:\tZ (zombie)\n", 0, true},
		{"odd unit", "VmRSS:\t12 MB\n", 0, true},
	})
}

func TestClockTick(t *testing.T) {
	dir := t.TempDir()
	auxv := func(name string, pairs ...uint64) string {
		b := make([]byte, 0, 8*len(pairs))
		for _, v := range pairs {
			b = binary.NativeEndian.AppendUint64(b, v)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want time.Duration
	}{
		{"AT_CLKTCK 250", auxv("clktck", 6, 4096, 17, 250, 0, 0), 4 * time.Millisecond},
		{"no AT_CLKTCK", auxv("none", 6, 4096, 0, 0), 10 * time.Millisecond},
		{"unreadable", filepath.Join(dir, "missing"), 10 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clockTick(tt.path); got != tt.want {
				t.Fatalf("clockTick = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSamplerSumsProcesses(t *testing.T) {
	root := t.TempDir()
	for pid, rss := range map[string]string{"10": "100", "11": "250"} {
		dir := filepath.Join(root, pid)
		if err := os.MkdirAll(filepath.Join(dir, "fd"), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, fd := range []string{"0", "1", "2"} {
			if err := os.WriteFile(filepath.Join(dir, "fd", fd), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		stat := pid + " (nginx) S 1 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 1 0 1 1 1"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "status"), []byte("VmRSS:\t"+rss+" kB\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := &sampler{root: root, pids: []int{10, 11}, tick: 10 * time.Millisecond}
	got, err := s.sample()
	want := usage{CPU: 300 * time.Millisecond, RSSKiB: 350, FDs: 6}
	if err != nil || got != want {
		t.Fatalf("sample = %+v, %v; want %+v", got, err, want)
	}
}

func TestParsePIDs(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"", nil, false},
		{"12", []int{12}, false},
		{"12, 13,14", []int{12, 13, 14}, false},
		{"12,,13", nil, true},
		{"-1", nil, true},
	}
	for _, tt := range tests {
		got, err := parsePIDs(tt.in)
		if (err != nil) != tt.wantErr || len(got) != len(tt.want) {
			t.Fatalf("parsePIDs(%q) = %v, %v", tt.in, got, err)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("parsePIDs(%q) = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}
