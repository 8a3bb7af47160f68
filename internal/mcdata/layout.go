package mcdata

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The layouts wire writes and reads, as minecraft-data spells them. A packet
// whose definition is not exactly one of these is an error: wire would
// otherwise send bytes the client does not expect.
const (
	layoutEmpty      = `["container",[]]`
	layoutKeepAlive  = `["container",[{"name":"keepAliveId","type":"i64"}]]`
	layoutTransfer   = `["container",[{"name":"host","type":"string"},{"name":"port","type":"varint"}]]`
	layoutDisconnect = `["container",[{"name":"reason","type":"anonymousNbt"}]]`
	layoutShowDialog = `["container",[{"name":"dialog","type":"anonymousNbt"}]]`
	layoutProperties = `{"name":"properties","type":["array",{"countType":"varint","type":["container",[{"name":"name","type":"string"},{"name":"value","type":"string"},{"name":"signature","type":["option","string"]}]]}]}`
)

// protocol is the part of a protocol.json this package reads.
type protocol struct {
	Types         map[string]json.RawMessage
	Login         direction
	Configuration direction
}

type direction struct {
	ToClient struct{ Types map[string]json.RawMessage }
	ToServer struct{ Types map[string]json.RawMessage }
}

// packets is one state-and-direction's packets: name -> id and name -> layout.
type packets struct {
	ids    map[string]int
	layout map[string]string
}

func loadRow(path string) (Row, error) {
	var p protocol
	if err := readJSON(path, &p); err != nil {
		return Row{}, err
	}
	lc, err1 := p.packets(p.Login.ToClient.Types)
	ls, err2 := p.packets(p.Login.ToServer.Types)
	cc, err3 := p.packets(p.Configuration.ToClient.Types)
	cs, err4 := p.packets(p.Configuration.ToServer.Types)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return Row{}, err
		}
	}
	var r Row
	var err error
	r.LoginSuccessStrict, err = successLayout(lc.layout["success"])
	for _, c := range []struct {
		dst    *int
		in     packets
		name   string
		layout string
	}{
		{&r.LoginSuccess, lc, "success", ""},
		{&r.LoginAcknowledged, ls, "login_acknowledged", layoutEmpty},
		{&r.ConfigKeepAliveOut, cc, "keep_alive", layoutKeepAlive},
		{&r.ConfigKeepAliveIn, cs, "keep_alive", layoutKeepAlive},
		{&r.ConfigTransfer, cc, "transfer", layoutTransfer},
		{&r.ConfigDisconnect, cc, "disconnect", layoutDisconnect},
	} {
		if err != nil {
			break
		}
		*c.dst, err = c.in.id(c.name, c.layout)
	}
	if _, ok := cc.ids["show_dialog"]; ok && err == nil {
		r.ConfigShowDialog, err = cc.id("show_dialog", layoutShowDialog)
	}
	return r, err
}

// id is the packet's id, after checking its layout (want "": not checked here).
func (ps packets) id(name, want string) (int, error) {
	id, ok := ps.ids[name]
	switch {
	case !ok:
		return 0, fmt.Errorf("no packet %q", name)
	case want != "" && ps.layout[name] != want:
		return 0, fmt.Errorf("packet %q has layout %s, want %s", name, ps.layout[name], want)
	}
	return id, nil
}

// successLayout checks Login Success: uuid, username, properties, and from
// 1.20.5 to 1.21.1 a trailing strictErrorHandling bool.
func successLayout(layout string) (strict bool, err error) {
	var def []json.RawMessage
	if err := json.Unmarshal([]byte(layout), &def); err != nil || len(def) != 2 {
		return false, fmt.Errorf("login success: layout %s", layout)
	}
	var fields []json.RawMessage
	if err := json.Unmarshal(def[1], &fields); err != nil {
		return false, fmt.Errorf("login success: layout %s", layout)
	}
	want := []string{`{"name":"uuid","type":"UUID"}`, `{"name":"username","type":"string"}`, layoutProperties}
	got := make([]string, len(fields))
	for i, f := range fields {
		got[i] = compact(f)
	}
	if len(got) == 4 && got[3] == `{"name":"strictErrorHandling","type":"bool"}` {
		strict, got = true, got[:3]
	}
	if !slices.Equal(got, want) {
		return false, fmt.Errorf("login success: unknown layout %s", layout)
	}
	return strict, nil
}

// packets reads a direction's packet mapper and the layout of each packet.
func (p *protocol) packets(types map[string]json.RawMessage) (packets, error) {
	var def []json.RawMessage
	var fields []struct {
		Name string
		Type []json.RawMessage
	}
	var mapper struct{ Mappings map[string]string }
	var sw struct{ Fields map[string]string }
	err := json.Unmarshal(types["packet"], &def)
	if err == nil && len(def) == 2 {
		err = json.Unmarshal(def[1], &fields)
	}
	if err != nil || len(fields) != 2 || len(fields[0].Type) != 2 || len(fields[1].Type) != 2 {
		return packets{}, fmt.Errorf("packet mapper: unknown shape")
	}
	if err := json.Unmarshal(fields[0].Type[1], &mapper); err != nil {
		return packets{}, fmt.Errorf("packet mapper: %w", err)
	}
	if err := json.Unmarshal(fields[1].Type[1], &sw); err != nil {
		return packets{}, fmt.Errorf("packet switch: %w", err)
	}
	ps := packets{ids: map[string]int{}, layout: map[string]string{}}
	for key, name := range mapper.Mappings {
		id, err := parseID(key)
		if err != nil {
			return packets{}, err
		}
		ps.ids[name] = id
		typ := sw.Fields[name]
		def, ok := types[typ]
		if !ok {
			def = p.Types[typ]
		}
		ps.layout[name] = compact(def)
	}
	return ps, nil
}

// compact is a JSON value without insignificant space, for comparing layouts.
func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
