package antibot

// Java Edition's account names: 3 to 16 of [A-Za-z0-9_]. Mojang has enforced
// this for new names for years; a client sending anything else is a bot or a
// modified client (offline-mode servers accept it, which is why a route asks).
const (
	minName = 3
	maxName = 16
)

// ValidName reports whether name is a valid Java Edition player name.
func ValidName(name string) bool {
	if len(name) < minName || len(name) > maxName {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		default:
			return false
		}
	}
	return true
}
