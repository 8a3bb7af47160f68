package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// activeResult is what n players sending small frames at a game's rate cost the proxy.
// A packet is one frame in one direction through the proxy: every delivered frame is
// two (player to backend, and the backend's echo back).
type activeResult struct {
	Mode       string  `json:"mode"`
	Label      string  `json:"label,omitempty"`
	Players    int     `json:"players"`
	Rate       float64 `json:"rate_hz"`
	Size       int     `json:"frame_bytes"`
	Seconds    float64 `json:"seconds"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	// Sent is the frames due in the window that the generator wrote; Blocked the ones it
	// could not write at all (the socket's send buffer was full: the proxy had stopped
	// reading). Delivered came back echoed, byte-exact and in order; Lost is
	// Sent + Blocked - Delivered.
	Sent       int64 `json:"sent"`
	Blocked    int64 `json:"blocked"`
	Delivered  int64 `json:"delivered"`
	Lost       int64 `json:"lost"`
	Mismatched int64 `json:"mismatched"`
	latencies
	// CPUSeconds is the sampled processes' (the proxy's) CPU time over the window;
	// CPUUsPerPacket divides it by 2 x Delivered; CoresBusy by the window.
	CPUSeconds     float64 `json:"cpu_s"`
	CPUUsPerPacket float64 `json:"cpu_us_per_packet"`
	CoresBusy      float64 `json:"cores_busy"`
	RSSKiB         int64   `json:"rss_kib"`
	// LoadCPUSeconds and LoadCoresBusy are this tool's own CPU over the window: when
	// they approach the machine's cores, the generator, not the proxy, is the limit.
	LoadCPUSeconds float64 `json:"load_cpu_s"`
	LoadCoresBusy  float64 `json:"load_cores_busy"`
}

// activeOptions shape an active run.
type activeOptions struct {
	players, size, conc, drivers int
	rate                         float64
	warm, dur, grace             time.Duration
	seed                         uint64
}

func runActive(ctx context.Context, fs *flag.FlagSet, args []string) (*activeResult, error) {
	parse := targetFlags(fs)
	var o activeOptions
	fs.IntVar(&o.players, "n", 1000, "players logged in and sending")
	fs.Float64Var(&o.rate, "rate", 20, "frames per second each player sends (a game tick is 20/s)")
	fs.IntVar(&o.size, "size", 64, "bytes per frame on the wire (a Minecraft frame: length, id, payload), at least 20")
	fs.IntVar(&o.conc, "c", 32, "sessions opened in parallel")
	fs.IntVar(&o.drivers, "drivers", 2, "goroutines driving the players' sockets (each an epoll loop)")
	fs.DurationVar(&o.dur, "d", 5*time.Second, "measured duration")
	fs.DurationVar(&o.warm, "warmup", time.Second, "unmeasured warm-up before it")
	fs.DurationVar(&o.grace, "grace", 2*time.Second, "how long echoes of the window's frames may still arrive after it")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the players' send phases")
	t, err := parse(args)
	if err != nil {
		return nil, err
	}
	if o.players < 1 || o.rate <= 0 || o.size < minActiveFrame || o.size > 16<<10 || o.drivers < 1 || o.conc < 1 {
		return nil, fmt.Errorf("%w: -n, -rate, -drivers, -c positive; -size %d to %d", errUsage, minActiveFrame, 16<<10)
	}
	return active(ctx, t, o)
}

// minActiveFrame is the smallest frame that holds its header and the send stamp.
const minActiveFrame = 20

// activeFrame is a Minecraft frame of exactly size bytes whose payload starts with the
// sequence number and the send time (filled in per send by stamp).
func activeFrame(size int) []byte {
	// The length prefix is a VarInt of the rest's length: find the split that adds up.
	for rest := size - 1; rest > 0; rest-- {
		if len(wire.AppendVarInt(nil, int32(rest)))+rest == size {
			return wire.AppendFrame(nil, 0x1a, make([]byte, rest-1))
		}
	}
	// 129 bytes has no canonical split (128+1 is too short, 127+2 too long): a
	// two-byte VarInt of 127, as the protocol allows padded VarInts.
	rest := size - 2
	f := []byte{byte(rest&0x7f) | 0x80, byte(rest >> 7), 0x1a}
	return append(f, make([]byte, rest-1)...)
}

// stamp writes seq and the send time into the first 16 bytes of frame f's payload.
func stamp(f []byte, seq uint64, sent time.Duration) {
	off := stampOffset(f)
	binary.LittleEndian.PutUint64(f[off:], seq)
	binary.LittleEndian.PutUint64(f[off+8:], uint64(sent))
}

// stampOffset is where the payload of frame f starts (after the VarInt length and the
// one-byte id).
func stampOffset(f []byte) int {
	i := 0
	for f[i]&0x80 != 0 {
		i++
	}
	return i + 2
}

// readStamp is stamp's inverse.
func readStamp(f []byte) (seq uint64, sent time.Duration) {
	off := stampOffset(f)
	return binary.LittleEndian.Uint64(f[off:]), time.Duration(binary.LittleEndian.Uint64(f[off+8:]))
}

// selfPID is this process, whose CPU an active run reports beside the proxy's.
var selfPID = os.Getpid()
