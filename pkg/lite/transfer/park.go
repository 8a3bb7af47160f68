package transfer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"go.minekube.com/gate/pkg/edition/java/lite/wire"
)

// KeepAliveEvery is how often a parked client gets a keep-alive: well inside
// the vanilla client's 30 s read timeout, so it never times out while parked.
const KeepAliveEvery = 10 * time.Second

// Park keeps cv in the configuration state until ready is closed (nil), ctx
// ends (ctx.Err()) or the client leaves, sends garbage, or stops talking (its
// error): a keep-alive every every, and whatever the client sends (its keep-alive
// answers, settings, brand) read and dropped. A live client answers each
// keep-alive, so one that sends nothing for twice every is gone.
func (cv *Conv) Park(ctx context.Context, ready <-chan struct{}, every time.Duration) error {
	gone := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Go(func() { gone <- cv.listen(every) })
	defer func() {
		_ = cv.c.SetReadDeadline(time.Now()) // ends listen
		wg.Wait()
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for id := int64(1); ; id++ {
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case err := <-gone:
			return fmt.Errorf("transfer: parked client: %w", err)
		case <-tick.C:
			if err := cv.write(cv.ids.AppendKeepAlive(nil, id)); err != nil {
				return err
			}
		}
	}
}

// listen reads the parked client's frames until one is bad or none comes in time.
func (cv *Conv) listen(every time.Duration) error {
	for {
		id, payload, err := cv.readFrame(time.Now().Add(2 * every))
		if err != nil {
			return err
		}
		if id == cv.ids.KeepAliveServerbound {
			if _, err := wire.ParseKeepAlive(payload); err != nil {
				return err
			}
		}
	}
}

// LongHold is a login held past what the client waits for in the login state:
// the proxy logs the player in, parks them (Park) until Ready says the server
// answers, and transfers them to To, the address they used, to log in again.
type LongHold struct {
	// Handshake is the client's handshake frame as received: its protocol, and
	// the host (without a Forge or RealIP suffix) and port it asked for, To.
	Handshake []byte
	// Pending is what the client sent after its handshake, from the Login Start on.
	Pending []byte
	// Timeout bounds each wait for the client outside the park (see Redirect).
	Timeout time.Duration
	Every   time.Duration // keep-alive interval; KeepAliveEvery in production
	// Ready returns nil once the server answers, or an error when ctx ends first.
	Ready func(ctx context.Context) error
	// Notice, if set, is shown to a parked client whose version has dialogs
	// (1.21.6 on) as a notice titled NoticeTitle: why it waits.
	Notice string
}

// NoticeTitle is the title of a parked player's notice.
const NoticeTitle = "Starting the server"

// Run runs the long hold on c until ctx's deadline, which bounds the park: a
// player still parked then is transferred all the same (the server may be up by
// the time they are back, and if not they are told so there). ErrUnsupported
// means nothing was written; any other error, the client left or the proxy stops.
func (h LongHold) Run(ctx context.Context, c net.Conn) error {
	hs, _, err := wire.ParseHandshake(h.Handshake)
	if err != nil {
		return fmt.Errorf("transfer: %w", err)
	}
	cv, err := Login(c, hs.Protocol, h.Pending, h.Timeout)
	if err != nil {
		return err
	}
	if h.Notice != "" && cv.ids.ShowDialog != 0 {
		if err := cv.write(cv.ids.AppendNotice(nil, NoticeTitle, h.Notice)); err != nil {
			return err
		}
	}
	host, _ := wire.SplitAddress(hs.Address)
	ready := make(chan struct{})
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if h.Ready(rctx) == nil {
			close(ready)
		}
	})
	err = cv.Park(ctx, ready, h.Every)
	cancel()
	wg.Wait()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return cv.Transfer(Target{Host: host, Port: hs.Port})
}

// Parkable reports whether a login may be parked: a first login (intent 2, not one
// back from a transfer, which is never parked twice) of a client whose version has
// a known Transfer, on a route with a long hold (holdFor > 0).
func Parkable(protocol, intent int32, holdFor time.Duration) bool {
	_, ok := wire.LookupTransfer(protocol)
	return ok && holdFor > 0 && intent == wire.IntentLogin
}

// AsLogin turns a transfer login's handshake frame raw into an ordinary login's
// in place (its last byte is the intent), for a backend that does not accept
// transfers, and returns the handshake's intent as it now is.
func AsLogin(raw []byte, intent int32) int32 {
	if intent == wire.IntentTransfer && len(raw) > 0 && raw[len(raw)-1] == byte(wire.IntentTransfer) {
		raw[len(raw)-1] = byte(wire.IntentLogin)
		return wire.IntentLogin
	}
	return intent
}
