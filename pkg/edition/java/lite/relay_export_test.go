package lite

// LingerAfterHalfClose exposes the clean-end linger so tests can tell "ended at once"
// from "ended after the linger" without timing it.
const LingerAfterHalfClose = lingerAfterHalfClose
