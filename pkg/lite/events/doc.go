// Package events owns the proxy's event model and its ways out: the Event (a
// player joined, left or was refused; a backend went up or down; a route came or
// went; a wake target changed phase), the Bus that numbers events and hands them
// to subscribers through bounded queues that drop (and count) rather than wait,
// the live-session table the admin API shows, and webhook delivery (signed, retried,
// in gate's JSON or mc-router's payload).
//
// Nothing here runs on a connection's path but Bus.Publish and Sessions, which
// never block and do not allocate. It does not read lite's events (package feed
// turns them into these), serve HTTP (package admin streams the Bus) or decode
// YAML (package config decodes `webhooks`).
package events
