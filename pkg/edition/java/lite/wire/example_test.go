package wire_test

import (
	"fmt"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// A proxy reads into one buffer and parses again after every read until the
// handshake is complete; bytes after it are forwarded with it.
func ExampleParseHandshake() {
	stream := wire.AppendHandshake(nil, wire.Handshake{
		Protocol: 765, Address: "MC.Example.com.\x00FML3\x00", Port: 25565, Intent: wire.IntentLogin,
	})
	stream = append(stream, 0x02, 0x00, 0x00) // the start of a Login Start

	var buf []byte
	for _, c := range stream { // one byte per "read", the worst case
		buf = append(buf, c)
		if buf[0] == wire.LegacyPingByte {
			break // a pre-1.7 ping: ParseLegacyPing instead
		}
		hs, n, err := wire.ParseHandshake(buf)
		if err == wire.ErrIncomplete {
			continue
		}
		if err != nil {
			fmt.Println("close:", err)
			return
		}
		fmt.Printf("route %q, login %v, %d bytes to replay\n", wire.CleanHost(hs.Address), hs.IsLogin(), n)
		return
	}
	// Output: route "mc.example.com", login true, 29 bytes to replay
}
