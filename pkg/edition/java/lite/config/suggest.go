package config

import (
	"strconv"
	"strings"
)

// maxSuggestKey is the longest key a suggestion is looked for. A suggestion
// must be within a quarter of the key's length, and the longest known key is
// 36 bytes, so no key over 48 bytes can get one; computing the quadratic edit
// distance for it anyway is what a hostile file would exploit.
const maxSuggestKey = 64

// suggest returns the candidate closest to key when it is close enough to be
// a likely typo, or "".
func suggest(key string, candidates []string) string {
	if len(key) > maxSuggestKey {
		return ""
	}
	limit := max(2, len(key)/4)
	lower := strings.ToLower(key)
	best, bestDist := "", -1
	for _, c := range candidates {
		// The length difference is a lower bound of the distance.
		if abs(len(lower)-len(c)) > limit {
			continue
		}
		dist := editDistance(lower, strings.ToLower(c))
		if bestDist < 0 || dist < bestDist {
			best, bestDist = c, dist
		}
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
