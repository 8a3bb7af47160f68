// Package route owns the compiled route table of a Lite proxy: it turns the
// configured host patterns into an immutable Table and answers, for one cleaned
// virtual host, which route takes the connection and which backend addresses
// that route dials (with `$n` templates filled from the pattern's captures).
//
// Pattern language: `*` matches any run of bytes (dots included, the empty run
// too), `?` exactly one byte, everything else is literal. Matching is
// case-insensitive. Routes are tried in configuration order and, within a
// route, its hosts in order; the first match wins. That order holds within a
// precedence group (Spec.Group: the file's routes, or one discovered route);
// across groups an exact host beats a wildcard and a catch-all comes last. `*` captures are greedy
// like the regular expression `(.*)`; `?` captures its byte.
//
// A route whose backends use `$n` only matches when every capture of the
// matching pattern consists of ASCII letters, digits, '-' and '.', so a client
// can never steer the dial target outside what the pattern allows.
//
// The package does not clean hosts (the proxy cuts suffixes, ports and dots
// first), does not order or dial backends, and does not read configuration
// files: it works on plain Specs.
package route
