package hostport

import (
	"errors"
	"strconv"
	"testing"
)

var portCases = []struct {
	name   string
	in     string
	dial   error // ParsePort's error; nil means want is the port
	listen error // ParseListenPort's error
	want   uint16
}{
	{"the default Minecraft port", "25565", nil, nil, 25565},
	{"smallest dial port", "1", nil, nil, 1},
	{"largest port", "65535", nil, nil, 65535},
	{"leading zero read as the number", "01", nil, nil, 1},
	{"zero: listen only (a free port)", "0", ErrRange, nil, 0},
	{"all zeros", "000", ErrRange, nil, 0},
	{"one past the largest", "65536", ErrRange, ErrListenRange, 0},
	{"far too large", "99999999999999999999999", ErrRange, ErrListenRange, 0},
	{"empty", "", ErrSyntax, ErrSyntax, 0},
	{"plus sign", "+1", ErrSyntax, ErrSyntax, 0},
	{"minus sign", "-1", ErrSyntax, ErrSyntax, 0},
	{"leading space", " 1", ErrSyntax, ErrSyntax, 0},
	{"trailing space", "1 ", ErrSyntax, ErrSyntax, 0},
	{"a service name", "minecraft", ErrSyntax, ErrSyntax, 0},
	{"template reference", "$1", ErrSyntax, ErrSyntax, 0},
	{"hex", "0x10", ErrSyntax, ErrSyntax, 0},
	{"digit separator", "25_565", ErrSyntax, ErrSyntax, 0},
	{"non-ASCII digit", "٣", ErrSyntax, ErrSyntax, 0},
	{"huge with a letter at the end", "9999999999x", ErrSyntax, ErrSyntax, 0},
}

func TestParsePort(t *testing.T) {
	for _, tc := range portCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePort(tc.in)
			check(t, "ParsePort", tc.in, got, err, tc.want, tc.dial)
			got, err = ParseListenPort(tc.in)
			check(t, "ParseListenPort", tc.in, got, err, tc.want, tc.listen)
		})
	}
}

func check(t *testing.T, fn, in string, got uint16, err error, want uint16, wantErr error) {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) || got != 0 {
			t.Errorf("%s(%q) = %d, %v; want 0, %v", fn, in, got, err, wantErr)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("%s(%q) = %d, %v; want %d", fn, in, got, err, want)
	}
}

func FuzzParsePort(f *testing.F) {
	for _, tc := range portCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePort(s)
		if err == nil && p == 0 {
			t.Fatalf("ParsePort(%q) accepted 0", s)
		}
		lp, lerr := ParseListenPort(s)
		if err == nil && (lerr != nil || lp != p) {
			t.Fatalf("ParsePort(%q) = %d but ParseListenPort = %d, %v", s, p, lp, lerr)
		}
		// The rule the call sites used before there was one parser.
		u, uerr := strconv.ParseUint(s, 10, 16)
		if (uerr == nil) != (lerr == nil) || uint64(lp) != u && uerr == nil {
			t.Fatalf("ParseListenPort(%q) = %d, %v; strconv.ParseUint = %d, %v", s, lp, lerr, u, uerr)
		}
	})
}
