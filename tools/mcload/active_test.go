package main

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

func TestActiveFrameIsExactlyItsSize(t *testing.T) {
	for _, size := range []int{minActiveFrame, 64, 127, 128, 129, 130, 1024, 16 << 10} {
		f := activeFrame(size)
		if len(f) != size {
			t.Fatalf("activeFrame(%d) is %d bytes", size, len(f))
		}
		stamp(f, 7|windowBit, 1234*time.Microsecond)
		id, payload, n, err := wire.ParseFrame(f, size)
		if err != nil || n != size || id != 0x1a || len(payload) < 16 {
			t.Fatalf("size %d: frame id %#x, %d of %d bytes: %v", size, id, n, size, err)
		}
		if seq, sent := readStamp(f); seq != 7|windowBit || sent != 1234*time.Microsecond {
			t.Fatalf("size %d: stamp read back as %d, %v", size, seq, sent)
		}
	}
}

// Straight to the backend (no proxy), every frame due in the window is sent and comes
// back: the count is exact, as the drivers send every due frame even when late.
func TestActiveDeliversEveryFrameOfTheWindow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the active workload needs Linux (epoll)")
	}
	addr := startBackend(t)
	for _, size := range []int{64, 1024} {
		o := activeOptions{players: 20, size: size, conc: 4, drivers: 2, rate: 50,
			warm: 100 * time.Millisecond, dur: 300 * time.Millisecond, grace: 5 * time.Second, seed: 3}
		res, err := active(context.Background(), testTarget(addr, os.Getpid()), o)
		if err != nil {
			t.Fatal(err)
		}
		const want = 20 * 50 * 3 / 10 // players x rate x window
		if res.Errors != 0 || res.Sent+res.Blocked != want || res.Delivered != res.Sent || res.Lost != res.Blocked || res.Mismatched != 0 {
			t.Fatalf("size %d: result %+v; want %d frames sent and all delivered", size, res, want)
		}
		if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max || res.CPUUsPerPacket < 0 || res.LoadCPUSeconds < 0 {
			t.Fatalf("size %d: figures out of order: %+v", size, res)
		}
	}
}
