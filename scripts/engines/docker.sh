#!/usr/bin/env bash
# docker.sh - a private dockerd for gate's Docker discovery tests.
#
#   scripts/engines/docker.sh install   # apt-get install docker.io when dockerd is missing; the
#                                       # services it enables and starts are put back as they were
#   eval "$(scripts/engines/docker.sh start)"   # prints: export GATETEST_DOCKER_HOST=unix://...
#   scripts/engines/docker.sh stop
#
# start runs dockerd as root in the current network namespace (meant to be one made
# with `unshare -n` and `ip link set lo up`), with every path of its own under
# $GATETEST_ENGINES_DIR/docker: data root, exec root, pid file, socket, log. Its bridge
# (docker0, address $GATETEST_DOCKER_BIP, default 10.9.128.1/24) lives in that namespace,
# so container addresses are reachable from it and from nowhere else. iptables is off:
# nothing is published or masqueraded, the namespace's own routes reach the bridge.
# Two daemons do not collide as long as each has its own GATETEST_ENGINES_DIR and its own
# network namespace (docker0 is per namespace). It refuses to start in a namespace
# that has a default route (the machine's own) unless GATETEST_DOCKER_HOST_NETNS=1.
# Nothing is ever pulled: images are built FROM scratch. GATETEST_DOCKER_FLAGS adds
# dockerd flags.
#
# stop kills only the dockerd this script started (the PID it recorded), unmounts the
# namespace handles dockerd leaves (nothing stays pinned) and removes the socket and
# exec root; the data root stays so images survive a restart.
set -euo pipefail

ENGINES_DIR=${GATETEST_ENGINES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gate-engines}
STATE=$ENGINES_DIR/docker
SOCK=$STATE/docker.sock
PIDFILE=$STATE/dockerd.pid # written by this script, the PID it started
LOG=$STATE/dockerd.log
BIP=${GATETEST_DOCKER_BIP:-10.9.128.1/24}
START_TIMEOUT=${GATETEST_DOCKER_START_TIMEOUT:-60}
# More dockerd flags, split on spaces (e.g. --live-restore, to keep containers running
# across a daemon restart; stop then leaves them running too).
read -r -a EXTRA_FLAGS <<<"${GATETEST_DOCKER_FLAGS:-}"

log() { echo "docker.sh: $*" >&2; }

# The machine's own services that installing docker.io (and containerd with it)
# enables and, where an init system runs, starts. The tests never use them: start
# runs a daemon of its own.
SYSTEM_UNITS=(docker.service docker.socket containerd.service)

# unit_on reports whether unit is in state ("enabled" via is-enabled, or "active"
# via is-active); false without systemctl or without systemd running.
unit_on() {
	local state=$1 unit=$2
	command -v systemctl >/dev/null 2>&1 || return 1
	[[ $(systemctl "is-$state" "$unit" 2>/dev/null) == "$state" ]]
}

# sysv_docker_running reports whether Debian's init script (used without
# systemd) has a daemon running.
sysv_docker_running() {
	[[ -x /etc/init.d/docker ]] && /etc/init.d/docker status >/dev/null 2>&1
}

install() {
	if command -v dockerd >/dev/null 2>&1; then
		log "dockerd present: $(dockerd --version)"
		return
	fi
	local unit enabled=() active=() sysv=0
	for unit in "${SYSTEM_UNITS[@]}"; do
		unit_on enabled "$unit" && enabled+=("$unit")
		unit_on active "$unit" && active+=("$unit")
	done
	sysv_docker_running && sysv=1
	# One update, then the install; the lock timeout lets a parallel apt run finish.
	apt-get -o DPkg::Lock::Timeout=600 update >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y docker.io >&2
	log "installed: $(dockerd --version)"
	# Leave the machine's services as they were before the install: what it
	# started is stopped, what it enabled is disabled (socket before service, or
	# the socket would start the service again).
	for unit in docker.socket docker.service containerd.service; do
		if unit_on active "$unit" && [[ " ${active[*]} " != *" $unit "* ]]; then
			systemctl stop "$unit" >&2 && log "stopped $unit (the install started it)"
		fi
		if unit_on enabled "$unit" && [[ " ${enabled[*]} " != *" $unit "* ]]; then
			systemctl disable "$unit" >&2 && log "disabled $unit (the install enabled it)"
		fi
	done
	if ((!sysv)) && sysv_docker_running; then
		/etc/init.d/docker stop >&2 && log "stopped the init script's dockerd (the install started it)"
	fi
}

ping_ok() {
	curl -fsS --max-time 2 --unix-socket "$SOCK" http://docker/_ping >/dev/null 2>&1
}

running_pid() {
	[[ -f $PIDFILE ]] || return 1
	local pid
	pid=$(<"$PIDFILE")
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */dockerd ]] || return 1
	echo "$pid"
}

# wait_ready waits for dockerd $1 to answer /_ping; it stops it and fails when
# the daemon exits or START_TIMEOUT passes.
wait_ready() {
	local pid=$1 deadline=$((SECONDS + START_TIMEOUT))
	until ping_ok; do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "dockerd exited; last lines of $LOG:"
			tail -n 20 "$LOG" >&2
			rm -f "$PIDFILE"
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			log "dockerd not answering /_ping after ${START_TIMEOUT}s; see $LOG"
			stop
			exit 1
		fi
		sleep 0.1
	done
}

print_env() {
	echo "export GATETEST_DOCKER_HOST=unix://$SOCK"
}

start() {
	command -v dockerd >/dev/null 2>&1 || { log "no dockerd: run '$0 install'"; exit 1; }
	[[ $(id -u) == 0 ]] || { log "start needs root (inside an 'unshare -n' namespace)"; exit 1; }
	mkdir -p "$STATE/data" "$STATE/exec"
	if pid=$(running_pid); then
		# Idempotent only when that daemon is in this namespace: from another one its
		# bridge would be unreachable.
		if [[ $(readlink "/proc/$pid/ns/net") != "$(readlink /proc/self/ns/net)" ]]; then
			log "dockerd $pid of $STATE runs in another network namespace; stop it first"
			exit 1
		fi
		wait_ready "$pid"
		print_env
		return
	fi
	# A namespace with a default route is connected to the world (a fresh 'unshare -n'
	# one has none): the bridge and its addresses would land on real interfaces.
	if [[ -n $(ip route show default 2>/dev/null) && -z ${GATETEST_DOCKER_HOST_NETNS:-} ]]; then
		log "refusing to start in the machine's own network namespace: run it under 'unshare -n' (or set GATETEST_DOCKER_HOST_NETNS=1)"
		exit 1
	fi
	rm -f "$SOCK"
	# Each state dir gets its own containerd namespace, in case a system containerd
	# is running and both daemons end up on it.
	local ns
	ns=gate-$(printf '%s' "$STATE" | sha256sum | cut -c1-12)
	dockerd \
		--data-root "$STATE/data" \
		--exec-root "$STATE/exec" \
		--pidfile "$STATE/exec/dockerd.pid" \
		-H "unix://$SOCK" \
		--bip "$BIP" \
		--iptables=false \
		--ip-masq=false \
		--containerd-namespace "$ns" \
		--containerd-plugins-namespace "$ns-plugins" \
		--storage-driver overlay2 \
		"${EXTRA_FLAGS[@]}" \
		>"$LOG" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$PIDFILE"
	wait_ready "$pid"
	log "dockerd $pid ready on $SOCK (bridge $BIP)"
	print_env
}

# release_netns unmounts the handle on this network namespace that dockerd leaves
# under the exec root. A --network host container (image-check.sh runs one) makes
# dockerd bind-mount its own network namespace at exec/netns/default, and dockerd
# leaves that mount on exit: it would keep the test run's namespace alive after the
# run. The handle is only that (nsfs), never data. Containers' own handles beside
# it are dockerd's to remove (it does when they end; --live-restore keeps them).
release_netns() {
	local handle=$STATE/exec/netns/default
	if grep -q " $handle nsfs " /proc/self/mounts; then
		umount "$handle" || log "cannot unmount the namespace handle $handle"
	fi
}

stop() {
	local pid
	if ! pid=$(running_pid); then
		release_netns # left by a daemon that ended without this script
		rm -f "$PIDFILE" "$SOCK"
		return
	fi
	kill -TERM "$pid"
	local deadline=$((SECONDS + 30))
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			log "dockerd $pid ignored SIGTERM for 30s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	release_netns
	# dockerd unmounts what else it mounted under the exec root on a clean exit;
	# after a SIGKILL some may remain, and rm must not cross into them.
	if ! grep -q " $STATE/exec" /proc/self/mounts; then
		rm -rf "$STATE/exec"
	else
		log "mounts remain under $STATE/exec; left in place"
	fi
	# dockerd makes its data root a mount point of its own and leaves it behind;
	# busy (containers kept by --live-restore) means it stays.
	if mountpoint -q "$STATE/data"; then
		umount "$STATE/data" 2>/dev/null || log "$STATE/data stays mounted (in use)"
	fi
	rm -f "$PIDFILE" "$SOCK"
	log "dockerd $pid stopped"
}

case ${1:-} in
install) install ;;
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 install|start|stop" >&2
	exit 2
	;;
esac
