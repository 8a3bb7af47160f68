package status

import "slices"

// releaseProtocols are the protocol numbers of every Minecraft Java release since the
// Netty rewrite (1.7.2), ascending; several releases share one number (1.8 to 1.8.9
// are all 47). Status answers are keyed by these even before a login of that version
// has been seen, so a client sees the backend's answer for its own version, as through
// Gate (a ViaVersion backend answers each with that version). Snapshots and
// pre-releases are left out: they are not worth an entry each until a login teaches
// the route one. A release newer than this table is treated like a snapshot.
var releaseProtocols = []int32{
	4, 5, // 1.7.2-1.7.5, 1.7.6-1.7.10
	47,                 // 1.8.x
	107, 108, 109, 110, // 1.9, 1.9.1, 1.9.2, 1.9.3-1.9.4
	210,      // 1.10.x
	315, 316, // 1.11, 1.11.1-1.11.2
	335, 338, 340, // 1.12, 1.12.1, 1.12.2
	393, 401, 404, // 1.13, 1.13.1, 1.13.2
	477, 480, 485, 490, 498, // 1.14 to 1.14.4
	573, 575, 578, // 1.15, 1.15.1, 1.15.2
	735, 736, 751, 753, 754, // 1.16, 1.16.1, 1.16.2, 1.16.3, 1.16.4-1.16.5
	755, 756, // 1.17, 1.17.1
	757, 758, // 1.18-1.18.1, 1.18.2
	759, 760, 761, 762, // 1.19, 1.19.1-1.19.2, 1.19.3, 1.19.4
	763, 764, 765, 766, // 1.20-1.20.1, 1.20.2, 1.20.3-1.20.4, 1.20.5-1.20.6
	767, 768, 769, 770, 771, 772, 773, 774, // 1.21-1.21.1, 1.21.2-1.21.3, 1.21.4, 1.21.5, 1.21.6, 1.21.7-1.21.8, 1.21.9-1.21.10, 1.21.11
	775, 776, // 26.1-26.1.2, 26.2
}

// IsRelease reports whether v is the protocol number of a Minecraft Java release.
func IsRelease(v int32) bool {
	_, ok := slices.BinarySearch(releaseProtocols, v)
	return ok
}
