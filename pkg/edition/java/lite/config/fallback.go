package config

import (
	"github.com/google/uuid"

	"go.minekube.com/gate/pkg/edition/java/lite/status"
)

// Fallback is the status response a route answers pings with when every
// backend is down (Gate's `fallback:`); the fields and their defaults are
// status's.
type Fallback = status.Fallback

const fallbackIgnored = "ignored: not supported by this proxy's fallback status"

func (d *decoder) decodeFallback(e entry) *Fallback {
	fb := &Fallback{}
	ok := d.mapping(e, map[string]handler{
		"motd": func(f entry) {
			if v, ok := d.textComponent(f); ok {
				fb.MOTD = v
			}
		},
		"version": func(f entry) { d.decodeVersion(f, fb) },
		"players": func(f entry) {
			d.mapping(f, map[string]handler{
				"online": func(g entry) { d.intField(g, -1<<31, &fb.Online) },
				"max":    func(g entry) { d.intField(g, -1<<31, &fb.Max) },
				"sample": func(g entry) { fb.Sample = d.decodeSample(g) },
			}, nil)
		},
		"favicon": func(f entry) { d.favicon(f, &fb.Favicon) },
	}, map[string]string{"modInfo": fallbackIgnored})
	if !ok {
		return nil
	}
	return fb
}

func (d *decoder) decodeVersion(e entry, fb *Fallback) {
	d.mapping(e, map[string]handler{
		"name": func(f entry) { d.str(f, &fb.VersionName) },
		"protocol": func(f entry) {
			var v int64
			if d.integer(f, -1<<31, 1<<31-1, &v) {
				p := int32(v)
				fb.VersionProtocol = &p
			}
		},
	}, nil)
}

// SamplePlayer is one entry of `players.sample`.
type SamplePlayer = status.SamplePlayer

// maxSample caps `players.sample`: the client shows a handful, and the list
// counts against the size of a status response.
const maxSample = 100

func (d *decoder) decodeSample(e entry) []SamplePlayer {
	items, ok := d.sequence(e)
	if !ok {
		return nil
	}
	if len(items) > maxSample {
		d.invalid(e, "%d entries: at most %d", len(items), maxSample)
		return nil
	}
	out := make([]SamplePlayer, 0, len(items))
	for _, it := range items {
		p := SamplePlayer{ID: uuid.Nil.String()}
		named := false
		ok := d.mapping(it, map[string]handler{
			"name": func(f entry) { d.str(f, &p.Name); named = true },
			"id":   func(f entry) { d.sampleID(f, &p.ID) },
		}, nil)
		if ok && !named {
			d.errorf(resolve(it.val).Line, child(it.path, "name"), ErrMissing, "missing (want the name to show)")
		}
		out = append(out, p)
	}
	return out
}

func (d *decoder) sampleID(e entry, dst *string) {
	var s string
	d.str(e, &s)
	id, err := uuid.Parse(s)
	if err != nil {
		d.invalid(e, "invalid UUID %q (want e.g. 069a79f4-44e9-4726-a5be-fca90e38aaf5)", truncate(s))
		return
	}
	*dst = id.String()
}
