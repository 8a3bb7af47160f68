package config

import (
	"go.minekube.com/gate/pkg/lite/events"
	"go.minekube.com/gate/pkg/lite/wake"
)

// decodeWebhooks decodes `config.lite.webhooks`: a list of receivers of the
// proxy's events (docs/lite/events.md). Only the file names them: a discovered
// object has no key that reaches here.
//
//	url      required; http:// or https:// with a host
//	events   a name or a list (events.ParseTypes); default every event
//	secret   signs each body (events.HeaderSignature); default none
//	timeout  per request; default events.DefaultWebhookTimeout
//	format   gate (default) or mc-router
func (d *decoder) decodeWebhooks(e entry, dst *[]events.Webhook) {
	items, ok := d.sequence(e)
	if !ok {
		return
	}
	out := make([]events.Webhook, 0, len(items))
	for _, it := range items {
		if w, ok := d.webhook(it); ok {
			out = append(out, w)
		}
	}
	*dst = out
}

// webhook decodes one receiver, reporting every bad key.
func (d *decoder) webhook(e entry) (events.Webhook, bool) {
	w := events.Webhook{Types: events.AllTypes, Timeout: events.DefaultWebhookTimeout}
	before := len(d.errs)
	var url *entry
	d.mapping(e, map[string]handler{
		"url": func(f entry) {
			url = &f
			d.str(f, &w.URL)
			if err := wake.CheckWebhookURL(w.URL); w.URL != "" && err != nil {
				d.invalid(f, "%v", err)
			}
		},
		"events": func(f entry) {
			m, err := events.ParseTypes(d.strings(f))
			if err != nil {
				d.invalid(f, "%v", err)
			}
			w.Types = m
		},
		"secret":  func(f entry) { d.str(f, &w.Secret) },
		"timeout": func(f entry) { d.positive(f, &w.Timeout) },
		"format": func(f entry) {
			var s string
			d.str(f, &s)
			fm, ok := events.ParseFormat(s)
			if !ok {
				d.invalid(f, "unknown %q (want gate, mc-router)", truncate(s))
			}
			w.Format = fm
		},
	}, nil)
	if url == nil {
		d.errorf(resolve(e.val).Line, e.path, ErrMissing, "missing: a webhook needs a url")
	}
	return w, len(d.errs) == before
}
