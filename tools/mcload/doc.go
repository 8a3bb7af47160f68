// Command mcload measures a Minecraft TCP proxy from the outside: a fake backend and the
// client workloads that matter for a Lite proxy, each printing one JSON line of results.
//
//	mcload backend    -listen 127.0.0.1:25600
//	mcload status     -addr 127.0.0.1:25565 -c 64 -d 5s -pid 1234    # server-list storm
//	mcload setup      -addr 127.0.0.1:25565 -n 1000 -intent status    # sequential connects
//	mcload throughput -addr 127.0.0.1:25565 -streams 8 -d 5s -pid 1234
//	mcload hold       -addr 127.0.0.1:25565 -n 5000 -pid 1234         # idle sessions
//	mcload active     -addr 127.0.0.1:25565 -n 2000 -rate 20 -size 64 -pid 1234  # players at game rates
//
// The backend answers status pings and, for logins, picks its behaviour from the player
// name in Login Start (so one backend serves every workload through any proxy): "echo"
// echoes everything, "sink" discards, "source" streams bytes to the client, "idle" echoes
// the preamble and then waits with a small buffer.
//
// It owns workload generation and sampling other processes' CPU time, resident memory and
// descriptors from /proc (so a proxy is measured as a separate process). It does not
// start or configure the proxies it measures (scripts/bench-compare.sh does), and it
// never leaves the address it is given: point it at loopback.
package main
