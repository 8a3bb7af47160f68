package wire

import (
	"encoding/binary"
	"fmt"
)

//go:generate go run go.minekube.com/gate/internal/mcdata/gentransfer -data ${GATETEST_NODE_MODULES}/minecraft-data -out transfer_table.go

// ProtocolTransfer (1.20.5) is the first protocol version with the Transfer
// packet, a handshake intent of IntentTransfer, and Login Acknowledged.
const ProtocolTransfer int32 = 766

// TransferIDs are the packet ids, per protocol version, of what a proxy sends
// and reads when it logs a player in itself (offline, no encryption, no
// compression) and transfers them from the configuration state. The table is
// generated from minecraft-data (transfer_table.go) and checked against it.
type TransferIDs struct {
	LoginSuccess int32
	// LoginSuccessStrict: Login Success ends with the strictErrorHandling bool
	// (1.20.5 to 1.21.1).
	LoginSuccessStrict   bool
	LoginAcknowledged    int32 // serverbound, login state
	KeepAliveClientbound int32 // configuration state, both directions below too
	KeepAliveServerbound int32
	Transfer             int32
	Disconnect           int32
	// ShowDialog is the configuration state's Show Dialog (1.21.6 on); 0 for a
	// version without it (id 0 is Cookie Request in every version).
	ShowDialog int32
}

// LookupTransfer returns the ids for a protocol version; ok is false for one the
// table does not know (older than 1.20.5, a snapshot, or newer than the
// minecraft-data it was generated from): such a client gets no Transfer,
// never one guessed from a neighbouring version.
func LookupTransfer(protocol int32) (ids TransferIDs, ok bool) {
	ids, ok = transferTable[protocol]
	return ids, ok
}

// MaxTransferHost caps the host a Transfer names: the protocol's string cap.
const MaxTransferHost = 32767

// AppendLoginSuccess appends a Login Success for an offline login: the UUID and
// name the client sent, no properties.
func (ids TransferIDs) AppendLoginSuccess(dst []byte, uuid [16]byte, name string) []byte {
	p := make([]byte, 0, 16+1+len(name)+2)
	p = append(p, uuid[:]...)
	p = AppendString(p, name)
	p = AppendVarInt(p, 0) // properties
	if ids.LoginSuccessStrict {
		p = appendBool(p, false)
	}
	return AppendFrame(dst, ids.LoginSuccess, p)
}

// AppendKeepAlive appends a configuration-state Keep Alive carrying v.
func (ids TransferIDs) AppendKeepAlive(dst []byte, v int64) []byte {
	return AppendFrame(dst, ids.KeepAliveClientbound, binary.BigEndian.AppendUint64(nil, uint64(v)))
}

// AppendTransfer appends a Transfer telling the client to connect to host:port.
func (ids TransferIDs) AppendTransfer(dst []byte, host string, port uint16) []byte {
	p := AppendString(nil, host)
	p = AppendVarInt(p, int32(port))
	return AppendFrame(dst, ids.Transfer, p)
}

// ParseKeepAlive reads a serverbound configuration Keep Alive's payload.
func ParseKeepAlive(payload []byte) (int64, error) {
	if len(payload) != 8 {
		return 0, fmt.Errorf("%w: keep alive payload is %d bytes, want 8", ErrMalformed, len(payload))
	}
	return int64(binary.BigEndian.Uint64(payload)), nil
}

// ParseTransfer reads a Transfer's payload: the host and port it names.
func ParseTransfer(payload []byte) (host string, port uint16, err error) {
	host, n, err := ParseString(payload, MaxTransferHost)
	if err != nil {
		return "", 0, inFrame(err, "transfer host")
	}
	v, k, err := ParseVarInt(payload[n:])
	switch {
	case err != nil:
		return "", 0, inFrame(err, "transfer port")
	case v < 0 || v > 0xffff || n+k != len(payload):
		return "", 0, fmt.Errorf("%w: transfer port %d or %d bytes after it", ErrMalformed, v, len(payload)-n-k)
	}
	return host, uint16(v), nil
}
