package mcdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// FirstTransfer is the first protocol version with the Transfer packet (1.20.5).
const FirstTransfer = 766

// Row is what one protocol version needs: the ids of the packets a proxy sends
// or reads while it logs a player in and transfers them, and the one layout
// difference among them (Login Success's strictErrorHandling, 1.20.5 to 1.21.1).
type Row struct {
	Protocol int
	// Versions are the Minecraft releases that speak this protocol, oldest first.
	Versions           []string
	LoginSuccess       int
	LoginSuccessStrict bool
	LoginAcknowledged  int
	ConfigKeepAliveOut int // clientbound
	ConfigKeepAliveIn  int // serverbound
	ConfigTransfer     int
	ConfigDisconnect   int
	// ConfigShowDialog is the configuration state's Show Dialog (1.21.6 on), 0
	// before: id 0 is Cookie Request in every version that has the state.
	ConfigShowDialog int
	configDir        string // minecraft-data's directory for the protocol, for errors
}

// Table is the rows for every protocol version from FirstTransfer on that
// minecraft-data describes, and the data's own version.
type Table struct {
	DataVersion string
	Rows        []Row
}

// Load reads the minecraft-data npm package at dir (the directory holding its
// package.json).
func Load(dir string) (Table, error) {
	var pkg struct{ Version string }
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return Table{}, err
	}
	data := filepath.Join(dir, "minecraft-data", "data")
	var versions []struct {
		MinecraftVersion string
		Version          int
		ReleaseType      string
	}
	if err := readJSON(filepath.Join(data, "pc", "common", "protocolVersions.json"), &versions); err != nil {
		return Table{}, err
	}
	var paths struct {
		PC map[string]map[string]string `json:"pc"`
	}
	if err := readJSON(filepath.Join(data, "dataPaths.json"), &paths); err != nil {
		return Table{}, err
	}
	t := Table{DataVersion: pkg.Version}
	byProto := map[int]int{}                      // protocol -> index in t.Rows
	for _, v := range slices.Backward(versions) { // the file lists newest first
		dir, ok := paths.PC[v.MinecraftVersion]["protocol"]
		if v.ReleaseType != "release" || v.Version < FirstTransfer || !ok {
			continue
		}
		row, err := loadRow(filepath.Join(data, dir, "protocol.json"))
		if err != nil {
			return Table{}, fmt.Errorf("minecraft-data %s (%s): %w", v.MinecraftVersion, dir, err)
		}
		row.Protocol, row.configDir = v.Version, dir
		if i, seen := byProto[v.Version]; seen {
			if err := t.Rows[i].merge(row, v.MinecraftVersion); err != nil {
				return Table{}, err
			}
			continue
		}
		row.Versions = []string{v.MinecraftVersion}
		byProto[v.Version] = len(t.Rows)
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return Table{}, fmt.Errorf("minecraft-data at %s: no release from protocol %d on", dir, FirstTransfer)
	}
	slices.SortFunc(t.Rows, func(a, b Row) int { return a.Protocol - b.Protocol })
	return t, nil
}

// merge adds another release of the same protocol; its packets must agree.
func (r *Row) merge(o Row, version string) error {
	a, b := *r, o
	a.Versions, a.configDir, b.configDir = nil, "", ""
	if !reflectEqual(a, b) {
		return fmt.Errorf("minecraft-data: %s and %s share protocol %d but not their packets", r.Versions[0], version, r.Protocol)
	}
	r.Versions = append(r.Versions, version)
	return nil
}

func reflectEqual(a, b Row) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read minecraft-data: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// parseID reads a mapper key such as "0x0b".
func parseID(s string) (int, error) {
	v, err := strconv.ParseInt(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("packet id %q: %w", s, err)
	}
	return int(v), nil
}
