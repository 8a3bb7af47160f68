package wire_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.minekube.com/gate/internal/mcdata"
	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// TestTransferTableMatchesMinecraftData regenerates the table from the installed
// minecraft-data and compares it with the committed file byte for byte.
func TestTransferTableMatchesMinecraftData(t *testing.T) {
	modules := os.Getenv("GATETEST_NODE_MODULES")
	if modules == "" {
		t.Skip("needs npm's minecraft-data (GATETEST_NODE_MODULES): run scripts/test.sh")
	}
	table, err := mcdata.Load(filepath.Join(modules, "minecraft-data"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := table.Render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("transfer_table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("transfer_table.go differs from minecraft-data %s: run go generate ./pkg/edition/java/lite/wire\n got:\n%s\nwant:\n%s", table.DataVersion, got, want)
	}
}

func TestLookupTransferKnowsOnlyTheTable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		protocol int32
		ok       bool
		strict   bool
	}{
		{"1.20.4 has no transfer", 765, false, false},
		{"1.20.5 with strictErrorHandling", 766, true, true},
		{"1.21.1 with strictErrorHandling", 767, true, true},
		{"1.21.3 without it", 768, true, false},
		{"a version newer than the data", 9999, false, false},
		{"a snapshot", 1<<30 | 200, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, ok := wire.LookupTransfer(tc.protocol)
			if ok != tc.ok || ids.LoginSuccessStrict != tc.strict {
				t.Errorf("LookupTransfer(%d) = %+v, %v; want ok %v strict %v", tc.protocol, ids, ok, tc.ok, tc.strict)
			}
		})
	}
}

func TestTransferPacketBytes(t *testing.T) {
	old, _ := wire.LookupTransfer(766)
	cur, _ := wire.LookupTransfer(768)
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		// length 0x19: id, 16 UUID bytes, "Steve" (6), 0 properties, strict false.
		{"login success 1.20.5", old.AppendLoginSuccess(nil, steveUUID, "Steve"), "1902069a79f444e94726a5befca90e38aaf50553746576650000"},
		{"login success 1.21.3", cur.AppendLoginSuccess(nil, steveUUID, "Steve"), "1802069a79f444e94726a5befca90e38aaf505537465766500"},
		{"keep alive", cur.AppendKeepAlive(nil, 0x0102030405060708), "09040102030405060708"},
		{"transfer", cur.AppendTransfer(nil, "mc.example", 25566), "0f0b0a6d632e6578616d706c65de c701"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := hex.DecodeString(stripSpaces(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tc.got, want) {
				t.Errorf("got %x, want %x", tc.got, want)
			}
		})
	}
}

func stripSpaces(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil)) }

func TestParseKeepAlive(t *testing.T) {
	v, err := wire.ParseKeepAlive([]byte{0, 0, 0, 0, 0, 0, 1, 2})
	if err != nil || v != 0x102 {
		t.Errorf("ParseKeepAlive = %d, %v", v, err)
	}
	if _, err := wire.ParseKeepAlive([]byte{1, 2}); !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("short keep alive: %v, want ErrMalformed", err)
	}
}

func TestParseTransfer(t *testing.T) {
	ids, _ := wire.LookupTransfer(768)
	_, p, _, _ := wire.ParseFrame(ids.AppendTransfer(nil, "mc.example", 25566), 64)
	if host, port, err := wire.ParseTransfer(p); err != nil || host != "mc.example" || port != 25566 {
		t.Fatalf("ParseTransfer = %q, %d, %v", host, port, err)
	}
	for _, bad := range [][]byte{p[:len(p)-1], append(p[:len(p):len(p)], 0), {0x05, 'a'}} {
		if _, _, err := wire.ParseTransfer(bad); !errors.Is(err, wire.ErrMalformed) {
			t.Errorf("ParseTransfer(%x) = %v, want ErrMalformed", bad, err)
		}
	}
}

func FuzzParseTransfer(f *testing.F) {
	ids, _ := wire.LookupTransfer(768)
	_, p, _, _ := wire.ParseFrame(ids.AppendTransfer(nil, "mc.example", 25566), 64)
	f.Add(p)
	f.Fuzz(func(t *testing.T, b []byte) {
		host, port, err := wire.ParseTransfer(b)
		if err != nil {
			return
		}
		// A VarInt may be written longer than it needs: compare values, not bytes.
		_, again, _, _ := wire.ParseFrame(ids.AppendTransfer(nil, host, port), len(b)+8)
		if h, p, err := wire.ParseTransfer(again); err != nil || h != host || p != port {
			t.Fatalf("%x parsed as %q:%d, which appends as %x (%q:%d, %v)", b, host, port, again, h, p, err)
		}
	})
}
