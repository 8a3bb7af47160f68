package logging

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
)

func TestWarnWritesWarnLevelWithTheLoggersValues(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	Warn(log.WithValues("file", "config.yml"), "config warning", "warning", "w")
	want := `level=WARN msg="config warning" file=config.yml warning=w`
	if got := strings.TrimSpace(buf.String()); !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want it to end with %q", got, want)
	}
}

// Regression: through the limiter, every config warning of one load counts as
// the same line (one call site, one message, no err), so a file with more
// warnings than Burst lost the rest.
func TestWarnIsNotRateLimited(t *testing.T) {
	log, buf, _ := newTestLogger(t, Options{Burst: 1})
	for range 5 {
		Warn(log, "config warning", "warning", "w")
	}
	if n := len(lines(t, buf)); n != 5 {
		t.Errorf("%d lines, want 5", n)
	}
}

func TestWarnOnALoggerNotBackedBySlogWritesInfo(t *testing.T) {
	var got []string
	log := funcr.New(func(prefix, args string) { got = append(got, args) }, funcr.Options{})
	Warn(log, "config warning", "warning", "w")
	if len(got) != 1 || !strings.Contains(got[0], `"msg"="config warning"`) || !strings.Contains(got[0], `"level"=0`) {
		t.Errorf("got %q, want one info line", got)
	}
}
