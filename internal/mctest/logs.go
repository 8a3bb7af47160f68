package mctest

import (
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// Logs keeps every line written to its Logger, for tests about what is logged
// (once per state change, never once per player). The zero value is ready to use
// and safe for concurrent use.
type Logs struct {
	mu    sync.Mutex
	lines []string
}

// Logger returns a logger that records lines up to verbosity v (0 = info only).
func (l *Logs) Logger(v int) logr.Logger {
	return funcr.New(func(_, args string) {
		l.mu.Lock()
		l.lines = append(l.lines, args)
		l.mu.Unlock()
	}, funcr.Options{Verbosity: v})
}

// Find returns the recorded lines that contain s.
func (l *Logs) Find(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// Count returns how many recorded lines contain s.
func (l *Logs) Count(s string) int { return len(l.Find(s)) }
