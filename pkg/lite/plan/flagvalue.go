package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.minekube.com/gate/pkg/lite/strategy"
)

// durationsFlag parses "a=20ms,b=50ms" into a map; repeating the flag adds.
type durationsFlag struct{ m *map[string]time.Duration }

func (f durationsFlag) String() string {
	if f.m == nil {
		return ""
	}
	return joinPairs(*f.m, func(d time.Duration) string { return d.String() })
}

func (f durationsFlag) Set(s string) error {
	return setPairs(s, f.m, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err == nil && d < 0 {
			err = fmt.Errorf("negative duration")
		}
		return d, err
	})
}

// intsFlag parses "a=100,b=50" into a map; repeating the flag adds.
type intsFlag struct{ m *map[string]int }

func (f intsFlag) String() string {
	if f.m == nil {
		return ""
	}
	return joinPairs(*f.m, strconv.Itoa)
}

func (f intsFlag) Set(s string) error {
	return setPairs(s, f.m, func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err == nil && n < 0 {
			err = fmt.Errorf("negative count")
		}
		return n, err
	})
}

// listFlag parses "a,b" into a list; repeating the flag adds.
type listFlag struct{ l *[]string }

func (f listFlag) String() string {
	if f.l == nil {
		return ""
	}
	return strings.Join(*f.l, ",")
}

func (f listFlag) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*f.l = append(*f.l, item)
		}
	}
	return nil
}

// nameFlag validates a strategy name as it is parsed.
type nameFlag struct{ n *strategy.Name }

func (f nameFlag) String() string {
	if f.n == nil {
		return ""
	}
	return string(*f.n)
}

func (f nameFlag) Set(s string) error {
	n, err := parseName(s)
	if err != nil {
		return err
	}
	*f.n = n
	return nil
}

func setPairs[V any](s string, m *map[string]V, parse func(string) (V, error)) error {
	if *m == nil {
		*m = map[string]V{}
	}
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		// Backends contain colons (host:port) but never '=', so split at
		// the last '='.
		i := strings.LastIndexByte(pair, '=')
		if i <= 0 {
			return fmt.Errorf("%q: want backend=value", pair)
		}
		v, err := parse(pair[i+1:])
		if err != nil {
			return fmt.Errorf("%q: %w", pair, err)
		}
		(*m)[pair[:i]] = v
	}
	return nil
}

func joinPairs[V any](m map[string]V, format func(V) string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+format(m[k]))
	}
	return strings.Join(parts, ",")
}
