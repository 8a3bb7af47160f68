package wire_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// loadHex reads a testdata fixture: hex bytes separated by whitespace, with
// '#' starting a comment that runs to the end of the line.
func loadHex(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("open fixture: %v", err)
	}
	defer f.Close()
	var digits strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read fixture %s: %v", name, err)
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
	return b
}

// unhex decodes a hex literal written with optional spaces.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex literal %q: %v", s, err)
	}
	return b
}

// handshakeBody builds a handshake payload field by field, so that tests can
// also build frames the encoder would never write.
func handshakeBody(proto int32, addr string, port uint16, intent int32) []byte {
	b := wire.AppendVarInt(nil, proto)
	b = wire.AppendString(b, addr)
	b = binary.BigEndian.AppendUint16(b, port)
	return wire.AppendVarInt(b, intent)
}

// frameOf wraps an id and payload in a minimal length prefix.
func frameOf(id int32, payload []byte) []byte {
	return wire.AppendFrame(nil, id, payload)
}

func cat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

// parsed is what a strconv-style parser returns: a value, how many bytes it
// used, and an error.
type parsed[T comparable] struct {
	v   T
	n   int
	err error
}

// result gathers a parser's three results, so that a call can be passed whole.
func result[T comparable](v T, n int, err error) parsed[T] { return parsed[T]{v, n, err} }

// checkParsed fails t unless got is want: the error as errors.Is sees it, the
// value and the length exactly.
func checkParsed[T comparable](t *testing.T, fn string, got, want parsed[T]) {
	t.Helper()
	checkErr(t, got.err, want.err)
	if got.v != want.v || got.n != want.n {
		t.Fatalf("%s = %#v, %d; want %#v, %d", fn, got.v, got.n, want.v, want.n)
	}
}

// checkErr reports whether err matches want (nil means success expected).
func checkErr(t *testing.T, err, want error) bool {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return true
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
	return false
}
