package strategy

import (
	"testing"
	"time"
)

func TestHealthCheckDefaultTimeoutFitsInterval(t *testing.T) {
	tests := []struct {
		in   HealthCheck
		want time.Duration
	}{
		{HealthCheck{}, DefaultHealthTimeout},
		{HealthCheck{Interval: time.Second}, 500 * time.Millisecond},
		{HealthCheck{Interval: 6 * time.Second}, DefaultHealthTimeout},
		{HealthCheck{Interval: time.Second, Timeout: 100 * time.Millisecond}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		got := tt.in.WithDefaults()
		if got.Timeout != tt.want || got.Timeout >= got.Interval {
			t.Errorf("%+v.WithDefaults().Timeout = %s, want %s (below interval %s)", tt.in, got.Timeout, tt.want, got.Interval)
		}
	}
}
