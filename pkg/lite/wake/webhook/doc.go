// Package webhook is the wake target that asks an HTTP endpoint to start or
// stop a server: one signed JSON POST per call, retried with backoff within
// the call's time bound, whose reply may name the backend to use.
//
// The contract (docs/lite/wake-targets.md has it for operators):
//
//	POST <url>
//	Content-Type: application/json
//	X-Gate-Signature: sha256=<hex HMAC-SHA256 of the exact body, key = secret>   (only with a secret)
//
//	{"action":"wake"|"sleep","serverAddress":"<host>","backend":"<host:port or empty>",
//	 "timestamp":<unix seconds of the first attempt>,"id":"<32 hex digits>"}
//
// The signature covers the body only, so it verifies like other webhook
// signatures; the body carries the timestamp and a delivery id, so a
// receiver that checks the signature, rejects stale timestamps and remembers
// ids of the last few minutes cannot be replayed. Retries resend the same
// bytes (same id). A 2xx reply succeeds; its body, when it is a JSON object,
// may name {"backend":"host:port"}. Network errors, 5xx and 429 are retried
// with exponential backoff and jitter; other replies are not.
//
// It does not decide when to wake or sleep (the wake Coordinator does) and does
// not check that the named backend is up (the proxy's status exchange does).
package webhook
