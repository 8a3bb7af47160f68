package admin

import (
	"net/http"
	"strconv"

	"go.minekube.com/gate/pkg/edition/java/lite"
)

// MaxBackendsListed bounds the rows of /api/v1/backends. Template routes add a row
// per address players expanded (the strategy manager keeps up to
// strategy.MaxUnlistedBackends of them), so without a bound the answer grows with
// what players type. Configured backends and templates come first; when rows are
// left out, the headers X-Total-Count (all rows) and X-Truncated: true say so.
const MaxBackendsListed = 1000

// boundBackends returns at most MaxBackendsListed rows of in, expanded addresses last,
// and sets the headers that tell a client it got fewer than all.
func boundBackends(w http.ResponseWriter, in []lite.BackendInfo) []lite.BackendInfo {
	w.Header().Set("X-Total-Count", strconv.Itoa(len(in)))
	if len(in) <= MaxBackendsListed {
		return in
	}
	out := make([]lite.BackendInfo, 0, MaxBackendsListed)
	for _, expanded := range []bool{false, true} {
		for _, b := range in {
			if len(out) == MaxBackendsListed {
				break
			}
			if isExpanded(b) == expanded {
				out = append(out, b)
			}
		}
	}
	w.Header().Set("X-Truncated", "true")
	return out
}

// isExpanded reports a row for an address a template expanded to.
func isExpanded(b lite.BackendInfo) bool { return b.Template != "" && b.Template != b.Backend }
