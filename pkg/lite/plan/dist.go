package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Dist names a distribution of gaps between arrivals or of session lengths.
type Dist string

// The distributions the simulator draws from.
const (
	// DistFixed: every gap is exactly the mean (arrivals only).
	DistFixed Dist = "fixed"
	// DistPoisson: exponential gaps around the mean, as independent
	// players arrive (arrivals only).
	DistPoisson Dist = "poisson"
	// DistUniform: 50-150% of the mean (sessions only).
	DistUniform Dist = "uniform"
	// DistExp: exponential around the mean, many short sessions and a few
	// very long ones (sessions only).
	DistExp Dist = "exp"
)

// expSteps is the resolution of the exponential distribution's table.
const expSteps = 4096

// expTable holds -ln(u) for u in the middle of each of expSteps equal
// slices of (0,1), in millionths. Drawing from a table of integers keeps
// plans identical on every platform; the logarithms themselves are
// rounded to integers, which absorbs any last-bit differences.
var expTable = func() [expSteps]int64 {
	var t [expSteps]int64
	for i := range t {
		u := (float64(i) + 0.5) / expSteps
		t[i] = int64(math.Round(-math.Log(u) * 1e6))
	}
	return t
}()

// expDraw returns an exponentially distributed duration with the given mean.
func expDraw(r *rand.Rand, mean time.Duration) time.Duration {
	return time.Duration(int64(mean) / 1000 * expTable[r.IntN(expSteps)] / 1000)
}

// parseDist checks name against the distributions allowed for what.
func parseDist(name Dist, what string, allowed ...Dist) (Dist, error) {
	if name == "" {
		return allowed[0], nil
	}
	for _, d := range allowed {
		if d == name {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: %s distribution %q (want %s or %s)", ErrInvalid, what, name, allowed[0], allowed[1])
}
