package hostport

import "errors"

// The reasons a port is refused; config reports them as they are.
var (
	ErrSyntax      = errors.New("port must be a number")
	ErrRange       = errors.New("port out of range (want 1..65535)")
	ErrListenRange = errors.New("port out of range (want 0..65535)")
)

// maxPort is the largest TCP port.
const maxPort = 1<<16 - 1

// ParsePort reads the port of an address to dial: 1-65535.
func ParsePort(s string) (uint16, error) {
	n, err := parse(s)
	if err != nil {
		return 0, err
	}
	if n == 0 || n > maxPort {
		return 0, ErrRange
	}
	return uint16(n), nil
}

// ParseListenPort reads the port of an address to listen on: 0-65535.
func ParseListenPort(s string) (uint16, error) {
	n, err := parse(s)
	if err != nil {
		return 0, err
	}
	if n > maxPort {
		return 0, ErrListenRange
	}
	return uint16(n), nil
}

// parse reads s as decimal digits. Past maxPort it stops adding (the value is
// out of range either way) but keeps checking that every byte is a digit, so
// "99999x" is a syntax error, not a range error.
func parse(s string) (int, error) {
	if s == "" {
		return 0, ErrSyntax
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
		if n <= maxPort {
			n = n*10 + int(c-'0')
		}
	}
	return n, nil
}
