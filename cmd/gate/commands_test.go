package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"version", []string{"version"}, 0, "gate version dev\n", ""},
		{"-V", []string{"-V"}, 0, "gate version dev\n", ""},
		{"--version", []string{"--version"}, 0, "gate version dev\n", ""},
		{"help", []string{"help"}, 0, "gate lite status", ""},
		{"sleep for a preStop hook", []string{"sleep", "0s"}, 0, "", ""},
		{"sleep without a duration", []string{"sleep"}, 2, "", "usage: gate sleep DURATION"},
		{"sleep with a bad duration", []string{"sleep", "forever"}, 2, "", `want a duration from 0s to 1h, got "forever"`},
		{"lite without a subcommand", []string{"lite"}, 2, "", "usage:"},
		{"unknown lite subcommand", []string{"lite", "stauts"}, 2, "", "usage:"},
		{"validate a good file", []string{"validate", "--config", "../../config.yml"}, 0, "ok (", ""},
		{"status of an API that is not there", []string{"lite", "status", "--api", "http://127.0.0.1:1", "--timeout", "2s"}, 1, "", "gate lite status: http://127.0.0.1:1 (--api): admin API"},
		{"status with a missing token file", []string{"lite", "status", "--token-file", "/nonexistent/token"}, 2, "", "read api.tokenFile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &out, &errOut)
			if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errOut.String(), tt.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout containing %q, stderr containing %q",
					code, out.String(), errOut.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

func TestDialable(t *testing.T) {
	tests := []struct{ bind, want string }{
		{"0.0.0.0:8080", "127.0.0.1:8080"},
		{":8080", "127.0.0.1:8080"},
		{"[::]:8080", "127.0.0.1:8080"},
		{"localhost:8080", "localhost:8080"},
		{"10.1.2.3:8080", "10.1.2.3:8080"},
		{"[::1]:8080", "[::1]:8080"},
		{"garbage", "garbage"},
	}
	for _, tt := range tests {
		if got := dialable(tt.bind); got != tt.want {
			t.Errorf("dialable(%q) = %q, want %q", tt.bind, got, tt.want)
		}
	}
}
