package admission

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Limit is one token-bucket quota, counted per client address block (IPv4 /24,
// IPv6 /64).
type Limit struct {
	// Enabled turns the quota on; a disabled quota admits everything.
	Enabled bool
	// Rate is the refill in tokens (operations) per second; > 0 when enabled.
	Rate float64
	// Burst is the bucket size; >= 1 when enabled.
	Burst int
	// MaxEntries bounds how many address blocks the quota tracks (beyond it
	// blocks share overflow buckets, see the package doc); < 1 means 1.
	MaxEntries int
}

// Config is the admission policy. The zero value admits everything;
// DefaultConfig is Gate's defaults.
type Config struct {
	// Connections limits new connections of any kind per address block, checked
	// at accept (Gate's quota.connections). Package lite pays it when a
	// connection ends without a status or login handshake; those pay Status or
	// Logins instead. Default: enabled, 5/s, burst 10, 1000 entries.
	Connections Limit
	// Status limits status pings (legacy ones too) per address block, checked
	// once the handshake is read. Default: enabled, 5/s, burst 10, 1000 entries.
	Status Limit
	// Logins limits logins (and transfers) per address block, checked once the
	// handshake is read. Default: enabled, 0.4/s, burst 3, 1000 entries.
	Logins Limit
	// MaxConnections caps the client connections open at once over all
	// clients (handshakes, pings and player sessions together). A player
	// session holds two sockets, so keep it under half the process's
	// open-file limit. Default 10000; 0 means no cap.
	MaxConnections int
	// MaxConnectionsPerAddr caps the connections one client address (an IPv4
	// address or an IPv6 /64) holds open at once. Default 32; 0 means no cap.
	MaxConnectionsPerAddr int
	// Allow, when not empty, admits only addresses inside one of its
	// prefixes. Default: empty (everyone).
	Allow []netip.Prefix
	// Deny refuses addresses inside any of its prefixes, even when Allow
	// lists them. Default: empty.
	Deny []netip.Prefix
}

// DefaultConfig returns Gate's quota defaults.
func DefaultConfig() Config {
	return Config{
		Connections:           Limit{Enabled: true, Rate: 5, Burst: 10, MaxEntries: 1000},
		Logins:                Limit{Enabled: true, Rate: 0.4, Burst: 3, MaxEntries: 1000},
		Status:                Limit{Enabled: true, Rate: 5, Burst: 10, MaxEntries: 1000},
		MaxConnections:        10000,
		MaxConnectionsPerAddr: 32,
	}
}

// Options are what a Controller needs besides its policy.
type Options struct {
	// Now is the clock the token buckets refill by; nil uses time.Now.
	Now func() time.Time
}

// Intent is what a client asked for in its handshake.
type Intent uint8

// The intents with a quota of their own.
const (
	IntentStatus Intent = iota + 1
	IntentLogin
)

// Controller is the admission state of one proxy instance. All methods are safe for
// concurrent use; none blocks on I/O.
type Controller struct {
	now func() time.Time
	pol atomic.Pointer[policy]
	mu  sync.Mutex // serialises Update

	open    atomic.Int64
	perAddr openCounter
	refused [refusalKinds]atomic.Uint64
}

// policy is one immutable compiled Config. The bucket tables are shared between
// successive policies, so a reload keeps every address's tokens.
type policy struct {
	allow, deny                 prefixSet
	maxOpen, maxPerAddr         int
	connections, status, logins *bucketTable // nil when that quota is disabled
}

// Refusal kinds, for Stats.
const (
	refusedDenied = iota
	refusedRate
	refusedPerAddr
	refusedBusy
	refusalKinds
)

// New returns a Controller enforcing cfg.
func New(cfg Config, o Options) *Controller {
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Controller{now: o.Now, perAddr: openCounter{m: make(map[netip.Prefix]int32)}}
	c.Update(cfg)
	return c
}

// Update switches to cfg. Buckets of quotas that stay enabled keep their tokens (under
// the new rate and burst), open connections stay counted, and a quota that is turned
// off forgets its table.
func (c *Controller) Update(cfg Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	old := c.pol.Load()
	if old == nil {
		old = &policy{}
	}
	c.pol.Store(&policy{
		allow:       newPrefixSet(cfg.Allow),
		deny:        newPrefixSet(cfg.Deny),
		maxOpen:     max(0, cfg.MaxConnections),
		maxPerAddr:  max(0, cfg.MaxConnectionsPerAddr),
		connections: carry(old.connections, cfg.Connections, now),
		status:      carry(old.status, cfg.Status, now),
		logins:      carry(old.logins, cfg.Logins, now),
	})
}

// carry reuses t under the new limit, or makes or drops a table as l asks.
func carry(t *bucketTable, l Limit, now time.Time) *bucketTable {
	switch {
	case !l.Enabled || l.Rate <= 0 || l.Burst < 1:
		return nil
	case t == nil:
		return newBucketTable(l)
	default:
		t.update(l, now)
		return t
	}
}

// Admit decides on a new connection from addr, before anything is read from it. addr
// is the player's address; the zero Addr means it is unknown (a trusted load balancer
// or tunnel that sent no PROXY header), in which case the access lists and per-address
// limits cannot apply and only the global cap does. On success the Ticket holds the
// connection's place until Release; on refusal it holds nothing.
func (c *Controller) Admit(addr netip.Addr) (Ticket, error) {
	p := c.pol.Load()
	known := addr.IsValid()
	t := Ticket{c: c, addr: addr}
	if known {
		if p.deny.contains(addr) {
			return Ticket{}, c.refuse(refusedDenied, errDenyList)
		}
		if !p.allow.empty() && !p.allow.contains(addr) {
			return Ticket{}, c.refuse(refusedDenied, errNotAllowed)
		}
		if p.connections != nil {
			// Checked now, paid on Release unless the handshake exempts it (Ticket.Exempt).
			if !p.connections.peek(blockKey(addr), c.now()) {
				return Ticket{}, c.refuse(refusedRate, errConnRate)
			}
			t.owes = true
		}
	}
	if known && p.maxPerAddr > 0 {
		key := hostKey(addr)
		if !c.perAddr.acquire(key, p.maxPerAddr) {
			return Ticket{}, c.refuse(refusedPerAddr, errPerAddrCap)
		}
		t.perAddr = true
	}
	if n := c.open.Add(1); p.maxOpen > 0 && n > int64(p.maxOpen) {
		c.open.Add(-1)
		if t.perAddr {
			c.perAddr.release(hostKey(addr))
		}
		return Ticket{}, c.refuse(refusedBusy, errGlobalCap)
	}
	return t, nil
}

// AdmitIntent charges the quota of intent to addr once its handshake is known. The
// zero Addr (player unknown) is always admitted.
func (c *Controller) AdmitIntent(addr netip.Addr, in Intent) error {
	if !addr.IsValid() {
		return nil
	}
	p := c.pol.Load()
	var t *bucketTable
	var refusal error
	switch in {
	case IntentStatus:
		t, refusal = p.status, errStatusRate
	case IntentLogin:
		t, refusal = p.logins, errLoginRate
	default:
		return errNoIntent
	}
	if t != nil && !t.allow(blockKey(addr), c.now()) {
		return c.refuse(refusedRate, refusal)
	}
	return nil
}

// RetryAfter is when addr may try again after refusal err (from Admit or
// AdmitIntent): the time until its bucket holds a token for a rate refusal, 0 when
// it cannot be known (a cap frees up when other connections close).
func (c *Controller) RetryAfter(addr netip.Addr, err error) time.Duration {
	if !addr.IsValid() {
		return 0
	}
	p := c.pol.Load()
	var t *bucketTable
	switch err {
	case errConnRate:
		t = p.connections
	case errStatusRate:
		t = p.status
	case errLoginRate:
		t = p.logins
	}
	if t == nil {
		return 0
	}
	return t.wait(blockKey(addr), c.now())
}

func (c *Controller) refuse(kind int, err error) error {
	c.refused[kind].Add(1)
	return err
}

// Stats is a point-in-time view of a Controller, for tests, the soak tool and metrics.
type Stats struct {
	// Open counts admitted connections not yet released.
	Open int64
	// OpenAddrs counts client addresses holding at least one counted connection.
	OpenAddrs int
	// Entries per quota table (0 when the quota is off).
	ConnectionEntries, StatusEntries, LoginEntries int
	// Refusals since New, by cause.
	Denied, RateLimited, TooManyFromAddr, Busy uint64
}

// Stats returns the current counts.
func (c *Controller) Stats() Stats {
	p := c.pol.Load()
	return Stats{
		Open:              c.open.Load(),
		OpenAddrs:         c.perAddr.len(),
		ConnectionEntries: tableLen(p.connections),
		StatusEntries:     tableLen(p.status),
		LoginEntries:      tableLen(p.logins),
		Denied:            c.refused[refusedDenied].Load(),
		RateLimited:       c.refused[refusedRate].Load(),
		TooManyFromAddr:   c.refused[refusedPerAddr].Load(),
		Busy:              c.refused[refusedBusy].Load(),
	}
}

func tableLen(t *bucketTable) int {
	if t == nil {
		return 0
	}
	return t.len()
}
