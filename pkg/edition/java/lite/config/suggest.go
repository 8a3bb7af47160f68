package config

import (
	"strconv"
	"strings"
)

// suggest returns the candidate closest to key when it is close enough to be
// a likely typo, or "".
func suggest(key string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		dist := editDistance(strings.ToLower(key), strings.ToLower(c))
		if bestDist < 0 || dist < bestDist {
			best, bestDist = c, dist
		}
	}
	if bestDist < 0 || bestDist > max(2, len(key)/4) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func joinKeys(keys []string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = strconv.Quote(k)
	}
	return strings.Join(quoted, ", ")
}
