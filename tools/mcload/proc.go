package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// usage is one reading of a set of processes, summed over them.
type usage struct {
	CPU    time.Duration // user + system time since each process started
	RSSKiB int64         // resident set size
	FDs    int           // open file descriptors
}

func (u usage) sub(v usage) usage {
	return usage{CPU: u.CPU - v.CPU, RSSKiB: u.RSSKiB - v.RSSKiB, FDs: u.FDs - v.FDs}
}

// sampler reads other processes' usage from /proc. A zero sampler (no pids) reads zeros,
// so every workload runs without one.
type sampler struct {
	root string // "/proc", a test directory otherwise
	pids []int
	tick time.Duration // one clock tick (utime/stime unit)
}

func newSampler(pids []int) *sampler {
	return &sampler{root: "/proc", pids: pids, tick: clockTick("/proc/self/auxv")}
}

func (s *sampler) sample() (usage, error) {
	var total usage
	for _, pid := range s.pids {
		u, err := s.sampleOne(pid)
		if err != nil {
			return usage{}, err
		}
		total.CPU += u.CPU
		total.RSSKiB += u.RSSKiB
		total.FDs += u.FDs
	}
	return total, nil
}

func (s *sampler) sampleOne(pid int) (usage, error) {
	u, err := s.read(fmt.Sprintf("%s/%d", s.root, pid))
	if err != nil {
		return usage{}, fmt.Errorf("sample pid %d: %w", pid, err)
	}
	return u, nil
}

// read reads one process's usage from its /proc directory.
func (s *sampler) read(dir string) (usage, error) {
	ticks, err := readProc(dir+"/stat", parseStatCPU)
	if err != nil {
		return usage{}, err
	}
	rss, err := readProc(dir+"/status", parseStatusRSS)
	if err != nil {
		return usage{}, err
	}
	fds, err := os.ReadDir(dir + "/fd")
	return usage{CPU: time.Duration(ticks) * s.tick, RSSKiB: rss, FDs: len(fds)}, err
}

// readProc reads a /proc file and parses it.
func readProc(path string, parse func([]byte) (int64, error)) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parse(b)
}

// parseStatCPU returns utime + stime (fields 14 and 15 of /proc/PID/stat) in ticks.
// The command name (field 2) may hold spaces and parentheses, so fields are counted
// from the last ')'.
func parseStatCPU(stat []byte) (int64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("parse stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state), so utime (14) is f[11] and stime (15) f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("parse stat: %d fields after the command name, want 13+", len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse stat: utime %q stime %q", f[11], f[12])
	}
	return ut + st, nil
}

// parseStatusRSS returns VmRSS in KiB from /proc/PID/status.
func parseStatusRSS(status []byte) (int64, error) {
	for line := range strings.SplitSeq(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("parse status: VmRSS line %q", line)
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	return 0, fmt.Errorf("parse status: no VmRSS line")
}

// clockTick reads AT_CLKTCK from the auxiliary vector (the kernel's USER_HZ), falling
// back to 100 Hz, the value on every mainstream Linux build.
func clockTick(auxv string) time.Duration {
	const atClkTck = 17
	b, err := os.ReadFile(auxv)
	for err == nil && len(b) >= 16 {
		key, val := binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint64(b[8:])
		if key == atClkTck && val > 0 {
			return time.Second / time.Duration(val)
		}
		b = b[16:]
	}
	return 10 * time.Millisecond
}

// parsePIDs reads a comma-separated pid list ("" is none).
func parsePIDs(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var pids []int
	for f := range strings.SplitSeq(s, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("bad pid %q", f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// window samples when from arrives and again when ctx ends, and returns the CPU time
// the processes spent in between (zero without pids, or when ctx ends first). mark, if
// not nil, runs on this goroutine right at from, so a caller can read its own counters
// at the same instant.
func (s *sampler) window(ctx context.Context, from time.Time, mark func()) (time.Duration, error) {
	timer := time.NewTimer(time.Until(from))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return 0, nil
	}
	if mark != nil {
		mark()
	}
	a, err := s.sample()
	if err != nil {
		return 0, err
	}
	<-ctx.Done()
	b, err := s.sample()
	if err != nil {
		return 0, err
	}
	return b.CPU - a.CPU, nil
}
