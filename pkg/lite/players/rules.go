package players

// Rules are one scope's access settings (`players` globally or on a route): its
// own lists and the files it names. The zero Rules allows everyone.
type Rules struct {
	// Allow and Deny are the lists written in the config. Default: empty.
	Allow, Deny List
	// AllowFile and DenyFile name access list files (see File): the allow lists
	// of the one, the deny lists of the other (they may name the same file, as an
	// mc-router file holds both). Watched and reloaded when they change. A path
	// is used as given (package config makes it absolute). Default: none.
	AllowFile, DenyFile string
}

// Empty reports whether the rules allow everyone without looking at the player.
func (r *Rules) Empty() bool {
	return r == nil || r.Allow.n == 0 && r.Deny.n == 0 && r.AllowFile == "" && r.DenyFile == ""
}

// maxScopes is how many scopes one check merges (the global and the route's).
const maxScopes = 2

// Allows reports whether p may join host (the cleaned virtual host, which keys a
// file's `servers`) under the scopes given, in order global then route: the lists
// of every scope and of every file they name are merged under mc-router's
// precedence (see allowed). A file that never loaded allows no one on the allow
// side and denies no one on the deny side, and was logged.
func (g *Guard) Allows(host string, p Player, scopes ...*Rules) bool {
	var allow, deny [maxScopes * 3]*List
	a, d := allow[:0], deny[:0]
	for _, r := range scopes[:min(len(scopes), maxScopes)] {
		if r.Empty() {
			continue
		}
		a, d = append(a, &r.Allow), append(d, &r.Deny)
		if r.AllowFile != "" {
			f := g.file(r.AllowFile)
			a = append(a, &f.Global.Allow)
			if s := f.server(host); s != nil {
				a = append(a, &s.Allow)
			}
		}
		if r.DenyFile != "" {
			f := g.file(r.DenyFile)
			d = append(d, &f.Global.Deny)
			if s := f.server(host); s != nil {
				d = append(d, &s.Deny)
			}
		}
	}
	if len(a) == 0 {
		return true
	}
	var k key
	k.set(p)
	return allowed(&k, a, d)
}
