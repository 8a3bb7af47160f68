package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// sample is what the soak watches of the proxy process.
type sample struct {
	Goroutines int // in-process runs only
	FDs        int // open file descriptors, of which:
	Sockets    int
	Pipes      int    // the relay's splice pipes (a pool keeps up to 64 idle ones)
	HeapInuse  uint64 // bytes, after a GC; in-process runs only
	RSS        uint64 // bytes
}

func (s sample) String() string {
	return fmt.Sprintf("goroutines %d, fds %d (sockets %d, pipes %d), heap %.1f MiB, rss %.1f MiB",
		s.Goroutines, s.FDs, s.Sockets, s.Pipes, float64(s.HeapInuse)/(1<<20), float64(s.RSS)/(1<<20))
}

// measure samples pid ("self" for this process); gc collects first so heap figures
// compare like with like.
func measure(pid string, gc bool) (sample, error) {
	var s sample
	if pid == "self" {
		if gc {
			runtime.GC()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s.Goroutines, s.HeapInuse = runtime.NumGoroutine(), ms.HeapInuse
	}
	dir := "/proc/" + pid + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return s, fmt.Errorf("count fds: %w", err)
	}
	s.FDs = len(fds)
	for _, fd := range fds {
		target, err := os.Readlink(dir + "/" + fd.Name())
		switch {
		case err != nil: // closed while we looked
		case strings.HasPrefix(target, "socket:"):
			s.Sockets++
		case strings.HasPrefix(target, "pipe:"):
			s.Pipes++
		}
	}
	s.RSS, err = rss(pid)
	return s, err
}

func rss(pid string) (uint64, error) {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, fmt.Errorf("read rss: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("read rss: no VmRSS in /proc/%s/status", pid)
}
