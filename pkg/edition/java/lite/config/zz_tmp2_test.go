package config

import (
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

var zzMu sync.Mutex
var zzMax time.Duration

func FuzzZZ(f *testing.F) {
	for _, name := range []string{"config.yml", "config-lite.yml"} {
		if data, err := os.ReadFile(repoRoot + name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(minimal))
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nconfig:\n  lite:\n    enabled: true\n    routes: *c\n"))
	f.Add([]byte("config:\n  lite:\n    enabled: true\n    routes:\n      - &r {host: a, backend: b, fallback: {motd: &m [*m]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		tm := time.AfterFunc(300*time.Millisecond, func() {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			name := fmt.Sprintf("/tmp/zzslow/%x", sha256.Sum256(data))
			os.MkdirAll("/tmp/zzslow", 0o755)
			os.WriteFile(name+".in", data, 0o644)
			os.WriteFile(name+".stack", buf[:n], 0o644)
		})
		start := time.Now()
		Parse(data, "fuzz.yml")
		el := time.Since(start)
		tm.Stop()
		close(done)
		zzMu.Lock()
		if el > zzMax {
			zzMax = el
			os.WriteFile("/tmp/zzmax.txt", []byte(fmt.Sprintf("%v %d\n%q\n", el, len(data), data)), 0o644)
		}
		zzMu.Unlock()
	})
}
